// The generated TypeScript client (clients/typescript): its committed types match what the
// generator makes from the running server's /openapi.json, it builds with tsc, and the built
// client runs a whole scenario against a real server: create a source and a collection, upload,
// wait for indexing, search, retrieve.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { CLIENT_DIR, DEFAULT_SERVER_URL, generateClientSources } from "../../clients/typescript/scripts/generate.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

let s: TestServer;
beforeAll(async () => {
  s = await startServer({ PUBLIC_URL: DEFAULT_SERVER_URL });
});
afterAll(async () => {
  await s?.close();
});

describe("clients/typescript", () => {
  it("is generated from the current OpenAPI document (npm run client:generate is up to date)", async () => {
    const doc = (await s.call("GET", "/openapi.json")).body;
    const fresh = await generateClientSources(doc);
    const stale = "clients/typescript is out of date: run `npm run client:generate` and commit the result";
    expect(fs.readFileSync(path.join(CLIENT_DIR, "openapi.json"), "utf8"), stale).toBe(fresh.openapiJson);
    expect(fs.readFileSync(path.join(CLIENT_DIR, "src/schema.ts"), "utf8"), stale).toBe(fresh.schemaTs);
    expect(fresh.schemaTs).toContain('post: operations["search"]');
  });

  it("builds, and the built client runs create collection, upload, wait, search and retrieve", async () => {
    const outDir = fs.mkdtempSync(path.join(CLIENT_DIR, ".build-test-"));
    try {
      await promisify(execFile)(process.execPath, [TSC, "-p", CLIENT_DIR, "--noEmit", "false", "--declaration", "--outDir", outDir], { cwd: ROOT });
      const sdk = await import(pathToFileURL(path.join(outDir, "index.js")).href);
      expect(fs.existsSync(path.join(outDir, "index.d.ts"))).toBe(true);

      const t = await s.tenant();
      const client = sdk.createQuarryClient({ baseUrl: s.url, apiKey: t.adminKey });
      const source = await client.POST("/data-sources", { body: { name: "Manuals", source_type: "upload" } });
      expect(source.response.status).toBe(201);
      const collection = await client.POST("/collections", { body: { name: "Handbook", data_source_ids: [source.data.id] } });
      expect(collection.response.status).toBe(201);

      const uploaded = await sdk.uploadFiles(client, source.data.id, [
        { name: "gearbox.md", content: "# Gearbox\n\nThe gearbox lubrication interval is 2000 operating hours.", type: "text/markdown" },
        { name: "pasta.md", content: "# Pasta\n\nBoil salted water and stir the spaghetti.", type: "text/markdown" },
      ]);
      expect(uploaded.response.status).toBe(202);
      expect(uploaded.data.map((d: any) => d.status)).toEqual(["queued", "queued"]);
      const docs = await sdk.waitUntilIndexed(client, source.data.id, { timeoutMs: 60_000 });
      expect(docs.map((d: any) => d.status)).toEqual(["indexed", "indexed"]);
      const gearbox = docs.find((d: any) => d.source === "gearbox.md").id;

      const found = await client.POST("/search", { body: { collection_id: collection.data.id, query: "gearbox lubrication", top_k: 5 } });
      expect(found.error).toBeUndefined();
      expect(found.data.results[0].document_id).toBe(gearbox);

      const grounded = await client.POST("/retrieve", { body: { collection_id: collection.data.id, query: "how often is the gearbox oiled", format: "text" } });
      expect(grounded.data.contexts[0].document_id).toBe(gearbox);
      expect(grounded.data.text).toContain("[1] Gearbox");

      const missing = await client.GET("/collections/{collection_id}", { params: { path: { collection_id: "col_missing" } } });
      expect(missing.response.status).toBe(404);
      expect(missing.error.detail).toMatch(/was not found/);
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  }, 240_000); // tsc over the generated types takes ~20 s alone on a busy 2-core machine
});
