// Small helpers for tests that need indexed content: create sources and collections, upload
// in-memory files, wait until every document has left queued/processing.
import type { TestServer } from "./server.js";

export async function createSource(s: TestServer, key: string, name = "Docs", type = "upload"): Promise<string> {
  const r = await s.call("POST", "/data-sources", { key, json: { name, source_type: type } });
  if (r.status !== 201) throw new Error(`source: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}

export async function createCollection(s: TestServer, key: string, sourceIds: string[], name = "Main"): Promise<string> {
  const r = await s.call("POST", "/collections", { key, json: { name, data_source_ids: sourceIds } });
  if (r.status !== 201) throw new Error(`collection: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}

export async function upload(
  s: TestServer,
  key: string,
  sourceId: string,
  files: { name: string; content: string | Buffer; type?: string }[],
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append("data_source_id", sourceId);
  for (const f of files) {
    const bytes = typeof f.content === "string" ? Buffer.from(f.content) : f.content;
    form.append("files", new Blob([new Uint8Array(bytes)], { type: f.type ?? "application/octet-stream" }), f.name);
  }
  return s.call("POST", "/documents/upload", { key, body: form });
}

/**
 * Polls until no document of the source is queued or processing and, when the model is ready,
 * every chunk has its vector (ingest indexes lexically first; the backfill embeds afterwards).
 * `vectors: false` returns as soon as the documents are lexically searchable.
 */
export async function waitIndexed(
  s: TestServer,
  key: string,
  sourceId: string,
  timeoutMs = 120_000,
  opts: { vectors?: boolean } = {},
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await s.call("GET", `/documents?data_source_id=${sourceId}`, { key });
    const docs = r.body as any[];
    const settled = docs.every((d) => d.status === "indexed" || d.status === "failed");
    const wantVectors = opts.vectors !== false && s.rt?.embedder?.status().state === "ready";
    if (settled && (!wantVectors || docs.every((d) => !d.chunks_pending_vectors))) return docs;
    if (Date.now() > deadline) throw new Error(`documents still pending: ${JSON.stringify(docs.map((d) => [d.source, d.status]))}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** A new tenant with one upload source of `files`, all indexed, in one collection. */
export async function indexedCollection(
  s: TestServer,
  files: { name: string; content: string | Buffer; type?: string }[],
): Promise<{ key: string; source: string; collection: string }> {
  const key = (await s.tenant()).adminKey;
  const source = await createSource(s, key);
  const collection = await createCollection(s, key, [source]);
  const r = await upload(s, key, source, files);
  if (r.status !== 202) throw new Error(`upload: ${r.status} ${JSON.stringify(r.body)}`);
  const docs = await waitIndexed(s, key, source, 60_000);
  const failed = docs.filter((d) => d.status !== "indexed");
  if (failed.length) throw new Error(`not indexed: ${JSON.stringify(failed.map((d) => [d.source, d.status, d.error]))}`);
  return { key, source, collection };
}
