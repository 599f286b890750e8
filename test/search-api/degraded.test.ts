// Without its model the service starts, says so, indexes and searches lexically; once the model
// is there (here: after a restart with the model in MODELS_DIR) the stored chunks get vectors.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { writeTinyModel } from "../embed/tiny-onnx.js";

describe("degraded mode without an embedding model", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-degraded-"));
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-models-"));
  const env = { EMBEDDING_PROFILE: "bge-small-en-v1.5", MODELS_DIR: modelsDir, ALLOW_MODEL_DOWNLOAD: "false" };
  let s: TestServer | undefined;
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  it("starts, reports the missing model, searches lexically, then embeds once the model is there", async () => {
    s = await startServer(env, { dataDir, listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(false);

    const health = await s.call("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body.checks.model.status).toBe("degraded");
    const profile = await s.call("GET", "/embedding-profile", { key: (await s.tenant()).adminKey });
    expect(profile.body.name).toBe("bge-small-en-v1.5");
    expect(profile.body.status).toBe("unavailable");
    expect(profile.body.status_detail).toMatch(/MODELS_DIR|download/i);

    const { adminKey: key } = await s.tenant();
    const src = await createSource(s, key);
    const col = await createCollection(s, key, [src]);
    const up = await upload(s, key, src, [{ name: "turbines.md", content: "# Turbines\n\nThe gearbox lubrication interval is 2000 hours." }]);
    expect(up.status).toBe(202);
    const [doc] = await waitIndexed(s, key, src);
    expect(doc.status).toBe("indexed");
    const chunks = await s.call("GET", `/documents/${doc.id}/chunks`, { key });
    expect(chunks.body.chunks.every((c: any) => c.embedded === false)).toBe(true);

    const r = await s.call("POST", "/search", { key, json: { collection_id: col, query: "gearbox lubrication" } });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe("lexical");
    expect(r.body.results[0].document_id).toBe(doc.id);
    await s.close();
    s = undefined;

    // the model arrives (an operator copies it into MODELS_DIR) and the service restarts
    writeTinyModel(modelsDir, "Xenova/bge-small-en-v1.5", ["the", "gearbox", "lubrication", "interval", "is", "hours", "turbines"], 384);
    s = await startServer(env, { dataDir, listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    await s.rt.backfill.idle();
    const after = await s.call("GET", `/documents/${doc.id}/chunks`, { key });
    expect(after.body.chunks.every((c: any) => c.embedded === true)).toBe(true);
    const hybrid = await s.call("POST", "/search", { key, json: { collection_id: col, query: "gearbox lubrication" } });
    expect(hybrid.body.mode).toBe("hybrid");
    expect(hybrid.body.results[0].document_id).toBe(doc.id);
    expect((await s.call("GET", "/health")).body.checks.model.status).toBe("up");
  });
});
