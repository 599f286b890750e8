// Shared bits of the content suites: a server with one tenant, multipart uploads built by
// hand (so file names reach the server exactly as written), polling, and a direct handle on the
// server's SQLite file to check what the API cannot show (chunks, FTS and vector rows).
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { storeSql } from "../helpers/store-sql.js";

export type Res = Awaited<ReturnType<TestServer["call"]>>;

export interface UploadFile {
  name: string;
  data: Buffer | string;
  type?: string;
}

export interface Ctx {
  s: TestServer;
  tenantId: string;
  key: string;
  call(method: string, p: string, json?: unknown): Promise<Res>;
}

/** A server (inject() unless `listen`) with one enterprise tenant, called with its admin key. */
export async function startWithTenant(env: Record<string, string> = {}, opts: { listen?: boolean } = {}): Promise<Ctx> {
  const s = await startServer({ DEFAULT_PLAN: "enterprise", ...env }, { listen: opts.listen ?? false });
  const t = await s.tenant();
  return { s, tenantId: t.id, key: t.adminKey, call: (method, p, json) => s.call(method, p, { key: t.adminKey, json }) };
}

/** A multipart/form-data body; `fields` come first, then every file under the field `files`. */
export function multipart(fields: Record<string, string>, files: UploadFile[], fileField = "files"): { body: Buffer; contentType: string } {
  const boundary = `----quarrytest${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  for (const f of files) {
    const name = f.name.replace(/"/g, "%22");
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="${name}"\r\nContent-Type: ${f.type ?? "application/octet-stream"}\r\n\r\n`,
      ),
    );
    parts.push(typeof f.data === "string" ? Buffer.from(f.data) : f.data);
    parts.push(Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function upload(c: Ctx, sourceId: string | null, files: UploadFile[], key: string | null = c.key): Promise<Res> {
  const mp = multipart(sourceId === null ? {} : { data_source_id: sourceId }, files);
  return c.s.call("POST", "/documents/upload", { key, body: new Uint8Array(mp.body), headers: { "content-type": mp.contentType } });
}

export async function createSource(c: Ctx, name = "files", extra: Record<string, unknown> = {}): Promise<any> {
  const r = await c.call("POST", "/data-sources", { name, source_type: "upload", ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

export async function createCollection(c: Ctx, name = "col", data_source_ids: string[] = []): Promise<any> {
  const r = await c.call("POST", "/collections", { name, data_source_ids });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value (returned) or the time is up (throws with the last value). */
export async function waitFor<T>(fn: () => Promise<T | false | null | undefined>, what: string, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const v = await fn();
    if (v) return v;
    last = v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await sleep(everyMs);
  }
}

const DONE = new Set(["indexed", "failed"]);

/** Waits until every listed document is indexed or failed; returns them by id. */
export async function settle(c: Ctx, ids: string[], timeoutMs = 60_000): Promise<Map<string, any>> {
  return waitFor(
    async () => {
      const out = new Map<string, any>();
      for (const id of ids) {
        const r = await c.call("GET", `/documents/${id}`);
        if (r.status !== 200 || !DONE.has(r.body.status)) return null;
        // ingest indexes lexically first; with the model ready, settled also means embedded
        if (r.body.chunks_pending_vectors > 0 && c.s.rt.embedder?.status().state === "ready") return null;
        out.set(id, r.body);
      }
      return out;
    },
    `documents ${ids.join(", ")} to settle`,
    timeoutMs,
    100,
  );
}

/** Uploads, expects 202, waits for the batch, and returns the settled documents in upload order. */
export async function uploadAndSettle(c: Ctx, sourceId: string, files: UploadFile[]): Promise<any[]> {
  const r = await upload(c, sourceId, files);
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const done = await settle(
    c,
    r.body.map((d: any) => d.id),
  );
  return r.body.map((d: any) => done.get(d.id));
}

export async function chunksOf(c: Ctx, docId: string, limit = 1000): Promise<any> {
  const r = await c.call("GET", `/documents/${docId}/chunks?limit=${limit}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** Index rows the server's database holds for these chunk ids: chunks, lexical rows and vector rows. */
export async function indexRows(c: Ctx, chunkIds: number[]): Promise<{ chunks: number; fts: number; vec: number }> {
  const sql = storeSql(c.s.rt.store);
  let chunks = 0;
  for (const id of chunkIds) chunks += await sql.count("SELECT count(*) AS n FROM chunks WHERE id = ?", id);
  return { chunks, fts: await sql.lexicalChunks(chunkIds), vec: await sql.vectorRows(chunkIds) };
}

/** Chunk ids (integers) of these documents, read from the server's database. */
export async function chunkIdsOf(c: Ctx, docIds: string[]): Promise<number[]> {
  const sql = storeSql(c.s.rt.store);
  const ids: number[] = [];
  for (const d of docIds) ids.push(...(await sql.all<{ id: number | string }>("SELECT id FROM chunks WHERE document_id = ? ORDER BY id", d)).map((r) => Number(r.id)));
  return ids;
}

/** Whole-table counts: chunks, chunks with lexical rows, vector rows, documents, jobs. */
export async function tableCounts(c: Ctx): Promise<{ chunks: number; fts: number; vec: number; documents: number; jobs: number }> {
  const sql = storeSql(c.s.rt.store);
  return {
    chunks: await sql.count("SELECT count(*) AS n FROM chunks"),
    fts: await sql.lexicalChunks(),
    vec: await sql.vectorRows(),
    documents: await sql.count("SELECT count(*) AS n FROM documents"),
    jobs: await sql.count("SELECT count(*) AS n FROM jobs"),
  };
}

/** the stored original of a document, through the server's file store (a directory, PostgreSQL or S3), null when none */
export function storedFile(s: { rt: { files: { read(t: string, d: string): Promise<Buffer | null> } } }, tenantId: string, docId: string): Promise<Buffer | null> {
  return s.rt.files.read(tenantId, docId);
}

export function tmpFiles(dataDir: string): string[] {
  const dir = path.join(dataDir, "files", "tmp");
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

// one version of each error check for every suite
export { expectDetail, expect422 } from "../kit/index.js";
