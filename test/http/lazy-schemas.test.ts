// Validators and serializers are compiled on first use (src/http/lazy-schemas.ts): a server starts
// without compiling them, every one still compiles from its schema, responses and 422s come out as
// before, and a broken schema still fails here rather than in a user's request.
import Fastify from "fastify";
import { Type } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { compileAllSchemas, useLazySchemas } from "../../src/http/lazy-schemas.js";
import { SHARED_SCHEMAS } from "../../src/http/schemas/index.js";

describe("schemas compiled on first use", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({}, { listen: false });
  });
  afterAll(() => s?.close());

  it("every route's schemas compile, once each; responses after that come out as before", async () => {
    const health = await s.call("GET", "/health");
    expect(health.status).toBe(200);
    expect(compileAllSchemas(s.app)).toBeGreaterThan(100);
    expect(compileAllSchemas(s.app)).toBe(0);
    expect((await s.call("GET", "/health")).body).toEqual(health.body);
  });

  function tinyApp() {
    const app = Fastify();
    useLazySchemas(app, SHARED_SCHEMAS);
    return app;
  }

  it("a response drops fields its schema does not declare; a bad body gets the contract's 422", async () => {
    const app = tinyApp();
    app.post("/x", { schema: { body: Type.Object({ n: Type.Integer({ minimum: 1 }) }), response: { 200: Type.Object({ a: Type.String() }) } } }, async () => ({ a: "kept", secret: "dropped" }));
    expect((await app.inject({ method: "POST", url: "/x", payload: { n: 2 } })).json()).toEqual({ a: "kept" });
    const bad = await app.inject({ method: "POST", url: "/x", payload: { n: 0 } });
    expect(bad.statusCode).toBe(400); // this bare app has no error mapping; the full app answers 422
    expect(bad.json().message).toMatch(/must be >= 1/);
    await app.close();
  });

  it("a broken response or request schema fails compileAllSchemas", async () => {
    const app = tinyApp();
    app.get("/broken", { schema: { response: { 200: { type: "object", properties: { a: { type: "no-such-type" } } } } } }, async () => ({}));
    await app.ready();
    expect(() => compileAllSchemas(app)).toThrow(/schema is invalid/);
    await app.close();
    const app2 = tinyApp();
    app2.post("/broken", { schema: { body: { type: "object", properties: { a: { type: "no-such-type" } } } } }, async () => ({}));
    await app2.ready();
    expect(() => compileAllSchemas(app2)).toThrow(/schema is invalid|must be equal to one of the allowed values/);
    await app2.close();
  });
});
