// kill -9 in the middle of ingestion: a real server process (`node --import tsx src/cli.ts serve`)
// is SIGKILLed while documents are queued/processing, then started again on the same DATA_DIR.
// Every document must end indexed exactly once: no loss, no duplicate documents, chunks or index rows.
// Under TEST_STORE=postgres (npm run test:pg) both processes run on a fresh PostgreSQL database.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PLATFORM_KEY } from "../kit/index.js";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { callProcess, killQuarries, startServerProcess, type ServerProcess } from "../helpers/process.js";
import { openDeploymentSql } from "../helpers/store-sql.js";
import { parseDocument } from "../../src/ingest/parse/index.js";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { loadProfiles, resolveActiveProfile } from "../../src/embed/profiles.js";
import { multipart, sleep, waitFor, type UploadFile } from "./helpers.js";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-kill9-"));
let database: TestDatabase | null = null;

beforeAll(async () => {
  if (process.env.TEST_STORE === "postgres") database = await createTestDatabase("quarry_kill9");
});

afterAll(async () => {
  killQuarries();
  fs.rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

/** the deployment's database, opened beside the server's own connections */
const openDb = () => openDeploymentSql(dataDir, database?.url ?? null);

const startProcess = () =>
  startServerProcess(dataDir, { DEFAULT_PLAN: "enterprise", ...(database ? { DATABASE_URL: database.url } : {}) }, 60_000);

const call = callProcess;

async function uploadTo(p: ServerProcess, key: string, sourceId: string, files: UploadFile[]): Promise<{ status: number; body: any }> {
  const mp = multipart({ data_source_id: sourceId }, files);
  const res = await fetch(p.url + "/documents/upload", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": mp.contentType },
    body: new Uint8Array(mp.body),
  });
  return { status: res.status, body: await res.json() };
}

const TOPICS = ["harbour", "lighthouse", "orchard", "quarry", "meadow", "canyon", "estuary", "tundra", "lagoon", "plateau"];

/** 40 small Markdown files, each with a few sections (three chunks apiece). */
function corpus(): UploadFile[] {
  return Array.from({ length: 40 }, (_, i) => {
    const t = TOPICS[i % TOPICS.length];
    const sections = Array.from(
      { length: 2 },
      (_, j) =>
        `## Part ${j + 1} of ${t} ${i}\n\n` +
        Array.from({ length: 2 }, (_, k) => `Sentence ${k} of part ${j} explains how the ${t} number ${i} changes with the seasons.`).join(" "),
    );
    return { name: `file-${String(i).padStart(2, "0")}.md`, data: `# Notes on ${t} ${i}\n\nAn introduction to ${t} ${i}.\n\n${sections.join("\n\n")}\n` };
  });
}

const statusesOf = async (p: ServerProcess, key: string, sourceId: string) =>
  ((await call(p, "GET", `/documents?data_source_id=${sourceId}`, key)).body as any[]).map((d) => d.status as string);

test("kill -9 mid-ingest, restart on the same DATA_DIR: every document ends indexed exactly once", async () => {
  const files = corpus();
  let p = await startProcess();
  const t = await call(p, "POST", "/tenants", PLATFORM_KEY, { name: "Durable" });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  const key = t.body.admin_key.key as string;
  const src = await call(p, "POST", "/data-sources", key, { name: "durable", source_type: "upload" });
  expect(src.status).toBe(201);
  const sourceId = src.body.id as string;

  const up = await uploadTo(p, key, sourceId, files);
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  expect(up.body).toHaveLength(40);
  const ids = new Map<string, string>(up.body.map((d: any) => [d.source, d.id]));

  // kill as soon as some documents are done and others are not
  const atKill = await waitFor(
    async () => {
      const st = await statusesOf(p, key, sourceId);
      return st.includes("indexed") ? st : null;
    },
    "the first document to be indexed",
    60_000,
    20,
  );
  await p.kill9();
  const pendingAtKill = atKill.filter((s) => s === "queued" || s === "processing").length;
  expect(pendingAtKill, `statuses at kill: ${atKill.join(",")}`).toBeGreaterThan(0);

  // what the database holds right after the crash: committed work only, nothing half-written
  {
    const db = await openDb();
    try {
      const n = db.count;
      expect(await n("SELECT count(*) AS n FROM documents")).toBe(40);
      const half = await n(`SELECT count(*) AS n FROM documents d WHERE d.status != 'indexed' AND EXISTS (SELECT 1 FROM chunks c WHERE c.tenant_id = d.tenant_id AND c.document_id = d.id)`);
      expect(half).toBe(0); // no chunks were committed for a document that is not indexed yet
      expect(await db.lexicalChunks()).toBe(await n("SELECT count(*) AS n FROM chunks"));
    } finally {
      await db.close();
    }
  }

  p = await startProcess();
  await waitFor(
    async () => {
      const st = await statusesOf(p, key, sourceId);
      return st.length === 40 && st.every((s) => s === "indexed");
    },
    "every document to be indexed after the restart",
    90_000,
    200,
  );
  const docs = (await call(p, "GET", `/documents?data_source_id=${sourceId}`, key)).body as any[];
  expect(docs).toHaveLength(40);
  expect(new Set(docs.map((d) => d.source)).size).toBe(40);
  for (const d of docs) expect(ids.get(d.source)).toBe(d.id); // the same rows, not new ones
  const s = (await call(p, "GET", `/data-sources/${sourceId}`, key)).body;
  expect(s).toMatchObject({ document_count: 40, indexed_count: 40, status: "ready" });
  expect(s.last_synced_at).toBeTypeOf("string");

  // a fresh index of each file (the same parser, chunker and profile, run here) gives the same chunks
  const profile = resolveActiveProfile(loadProfiles({ profilesFile: null }), "default");
  const byName = new Map(files.map((f) => [f.name, f]));
  let expectedChunks = 0;
  for (const d of docs) {
    const parsed = await parseDocument(Buffer.from(byName.get(d.source)!.data), "markdown", d.source);
    const fresh = chunkDocument(parsed, { chunkSizeTokens: profile.chunk_size_tokens, chunkOverlapTokens: profile.chunk_overlap_tokens });
    expectedChunks += fresh.length;
    const mine = (await call(p, "GET", `/documents/${d.id}/chunks?limit=1000`, key)).body;
    expect(mine.total, d.source).toBe(fresh.length);
    expect(d.chunk_count, d.source).toBe(fresh.length);
    expect(mine.chunks.map((c: any) => [c.position, c.heading_path, c.text]), d.source).toEqual(
      fresh.map((c) => [c.position, c.headingPath, c.text]),
    );
  }

  // the database: one chunk per (document, position), one FTS row and (once embedded) one vector per chunk, no jobs left
  await waitFor(
    async () => {
      const db = await openDb();
      try {
        return (await db.count("SELECT count(*) AS n FROM chunks WHERE embedded_in IS NULL")) === 0;
      } finally {
        await db.close();
      }
    },
    "every chunk to get its vector",
    60_000,
    250,
  );
  const db = await openDb();
  try {
    const n = db.count;
    const chunks = await n("SELECT count(*) AS n FROM chunks");
    expect(await n("SELECT count(*) AS n FROM documents")).toBe(40);
    expect(chunks).toBe(expectedChunks);
    expect(await n("SELECT count(*) AS n FROM (SELECT DISTINCT document_id, position FROM chunks) s")).toBe(chunks);
    expect(await n("SELECT coalesce(sum(chunk_count), 0) AS n FROM documents")).toBe(chunks);
    expect(await db.lexicalChunks()).toBe(chunks);
    expect(await db.vectorRows()).toBe(chunks);
    expect(await n("SELECT count(*) AS n FROM jobs")).toBe(0);
  } finally {
    await db.close();
  }

  // a clean stop this time
  p.child.kill("SIGTERM");
  const code = await Promise.race([new Promise((r) => p.child.once("exit", (c) => r(c))), sleep(15_000).then(() => "timeout")]);
  expect(code, p.output()).toBe(0);
}, 240_000);
