// How the API process serves the web console: index.html on the console's own paths only, hashed
// assets cached for good, every API path still answering JSON (404s included), and a page naming
// `npm run build:console` instead of a blank page when the build is missing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noModelEnv, startServer, type TestServer } from "../kit/index.js";
import { CONSOLE_PATHS } from "../../src/http/console.js";

const MARKER = "<!-- quarry console test build -->";

function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-console-"));
  fs.mkdirSync(path.join(dir, "assets"));
  fs.writeFileSync(path.join(dir, "index.html"), `<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head><body>${MARKER}<div id="root"></div></body></html>`);
  fs.writeFileSync(path.join(dir, "assets", "app-1a2b3c.js"), "console.log('console');\n");
  return dir;
}

async function get(s: TestServer, p: string, headers: Record<string, string> = {}) {
  const res = await fetch(s.url + p, { headers, redirect: "manual" });
  return { status: res.status, type: res.headers.get("content-type") ?? "", headers: res.headers, text: await res.text() };
}

describe("console served by the API process", () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    s = await startServer(noModelEnv(), { consoleDir: dir });
  });
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("answers the console's paths with index.html, revalidated on every load, under the security headers", async () => {
    for (const p of ["/", "/login", "/signup", "/verify-email?token=qv_abc", "/forgot-password", "/reset-password?token=qr_x", "/workspace", "/workspace/collections/col_123", "/workspace/search?q=a"]) {
      const r = await get(s, p, { accept: "text/html" });
      expect(r.status, p).toBe(200);
      expect(r.type, p).toMatch(/^text\/html; charset=utf-8/);
      expect(r.text, p).toContain(MARKER);
      expect(r.headers.get("cache-control"), p).toBe("no-cache");
      expect(r.headers.get("content-security-policy"), p).toContain("script-src 'self'");
    }
  });

  it("serves hashed assets with a year of caching and 404s missing ones as JSON", async () => {
    const js = await get(s, "/assets/app-1a2b3c.js");
    expect(js.status).toBe(200);
    expect(js.type).toMatch(/javascript/);
    expect(js.headers.get("cache-control")).toMatch(/max-age=31536000.*immutable/);
    const missing = await get(s, "/assets/nope.js");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).detail).toMatch(/No endpoint GET \/assets\/nope\.js/);
    const outside = await get(s, "/assets/../index.html");
    expect(outside.text).not.toContain(MARKER);
  });

  it("never shadows the API: every GET path of the OpenAPI document still answers JSON", async () => {
    const doc = JSON.parse((await get(s, "/openapi.json")).text) as { paths: Record<string, Record<string, unknown>> };
    const paths = Object.entries(doc.paths).filter(([, ops]) => "get" in ops).map(([p]) => p.replace(/\{[^}]+\}/g, "x_1"));
    expect(paths.length).toBeGreaterThan(15);
    for (const p of paths) {
      const r = await get(s, p, { accept: "text/html,*/*" });
      expect(r.text, p).not.toContain(MARKER);
      if (p !== "/metrics") expect(r.type, `${p} -> ${r.status}`).toMatch(/application\/json/);
    }
    // the console's routes are not part of the API's description
    for (const p of CONSOLE_PATHS) expect(doc.paths[p.replace("/*", "")], p).toBeUndefined();
  });

  it("keeps the JSON 404 for unknown paths, other methods on console paths, and /docs", async () => {
    for (const p of ["/nope", "/workspaces", "/loginx", "/collections/x/y/z", "/auth/verify-email"]) {
      const r = await get(s, p, { accept: "text/html" });
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.text).detail, p).toMatch(/^No endpoint GET /);
    }
    const post = await fetch(`${s.url}/workspace`, { method: "POST" });
    expect(post.status).toBe(404);
    expect((await post.json()).detail).toMatch(/^No endpoint POST \/workspace/);
    const unauth = await get(s, "/collections", { accept: "text/html" });
    expect(unauth.status).toBe(401);
    expect(unauth.type).toMatch(/application\/json/);
    const docs = await fetch(`${s.url}/docs/`, { redirect: "follow" });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
  });
});

describe("console build missing", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer(noModelEnv(), { consoleDir: path.join(os.tmpdir(), `quarry-no-console-${process.pid}`) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it("answers the console's paths with a page that says to run npm run build:console, and the API still works", async () => {
    for (const p of ["/", "/workspace", "/verify-email?token=qv_abc"]) {
      const r = await get(s, p, { accept: "text/html" });
      expect(r.status, p).toBe(503);
      expect(r.type).toMatch(/^text\/html/);
      expect(r.text).toContain("npm run build:console");
      expect(r.text).toContain('href="/docs"');
    }
    expect((await get(s, "/assets/index.js")).status).toBe(404);
    const health = await get(s, "/livez");
    expect(health.status).toBe(200);
  });
});
