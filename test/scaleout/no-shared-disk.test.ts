// The scale-out shape on machines that share no disk: one API process (`serve --no-worker`) and
// one worker process (`worker`), each with its own empty DATA_DIR, on one PostgreSQL database
// (the queue in it too). An upload accepted by the API is indexed by the worker, and so is a
// reindex of its source, with the originals in PostgreSQL (the default with DATABASE_URL) and,
// in the second shape, in S3-compatible storage (s3rver on loopback). Neither DATA_DIR ends up
// holding an original.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { noModelEnv, PLATFORM_KEY } from "../kit/index.js";
import { freePort, killQuarries, spawnQuarry, until } from "../helpers/process.js";
import { createTestDatabase, pgUnavailableReason } from "../helpers/pg.js";
import { startS3Server } from "../helpers/s3.js";

const skip = await pgUnavailableReason();
if (skip) console.log(`skipping the no-shared-disk test: ${skip}`);

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  killQuarries();
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const emptyDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-own-disk-"));
  cleanups.push(async () => fs.rmSync(d, { recursive: true, force: true }));
  return d;
};

/** originals under a DATA_DIR/files (uploads in flight in files/tmp are not originals) */
const originalsIn = (dataDir: string) => {
  const dir = path.join(dataDir, "files");
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((e) => e !== "tmp") : [];
};

/** finished ingest jobs in the worker's JSON log */
const finished = (out: string) => out.split("\n").filter((l) => l.includes('"ingest job finished"') && l.includes('"status":"indexed"')).length;

const shapes: [string, () => Promise<Record<string, string>>][] = [
  ["originals in PostgreSQL", async () => ({})],
  [
    "originals in S3-compatible storage",
    async () => {
      const s3 = await startS3Server();
      cleanups.push(() => s3.close());
      return s3.env("quarry/originals");
    },
  ],
];

describe.skipIf(skip).each(shapes)("API and worker with their own DATA_DIR (%s)", (_shape, extraEnv) => {
  it("index an upload and a reindex of it", async () => {
    const db = await createTestDatabase("quarry_own_disk");
    cleanups.push(() => db.drop());
    const base = { ...noModelEnv(), ...(await extraEnv()), DATABASE_URL: db.url, HOST: "127.0.0.1", DEFAULT_PLAN: "enterprise", RATE_LIMIT_PER_MINUTE: "0" };
    const [apiDir, workerDir] = [emptyDir(), emptyDir()];
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    spawnQuarry("api", ["serve", "--no-worker"], { ...base, DATA_DIR: apiDir, PORT: String(port) });
    const worker = spawnQuarry("worker", ["worker"], { ...base, DATA_DIR: workerDir });
    const call = async (method: string, p: string, key: string, body?: unknown) => {
      const isForm = body instanceof FormData;
      const r = await fetch(url + p, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body && !isForm ? { "content-type": "application/json" } : {}) },
        body: isForm ? body : body ? JSON.stringify(body) : undefined,
      });
      return { status: r.status, body: (await r.json()) as any };
    };
    await until(() => fetch(`${url}/health`).then((r) => r.status === 200), "the API process");

    const key = (await call("POST", "/tenants", PLATFORM_KEY, { name: "Own disks" })).body.admin_key.key as string;
    const src = (await call("POST", "/data-sources", key, { name: "docs", source_type: "upload" })).body.id as string;
    const form = new FormData();
    form.append("data_source_id", src);
    form.append("files", new Blob(["# Harbour cranes\n\nThe gantry crane on quay seven lifts forty tonnes.\n"], { type: "text/markdown" }), "cranes.md");
    const up = await call("POST", "/documents/upload", key, form);
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    const docId = up.body[0].id as string;
    const doc = () => call("GET", `/documents/${docId}`, key).then((r) => r.body);
    await until(async () => (await doc()).status === "indexed" && finished(worker.output()) === 1, "the worker to index the upload");

    const re = await call("POST", `/data-sources/${src}/reindex`, key);
    expect(re.status, JSON.stringify(re.body)).toBe(202);
    const after = await until(async () => (finished(worker.output()) === 2 ? doc() : null), "the worker to index it again");
    expect(after.status, after.error).toBe("indexed");
    expect(after.chunk_count).toBeGreaterThan(0);
    const col = (await call("POST", "/collections", key, { name: "All", data_source_ids: [src] })).body.id as string;
    const hits = await call("POST", "/search", key, { query: "gantry crane quay", collection_id: col });
    expect(hits.status, JSON.stringify(hits.body)).toBe(200);
    expect(JSON.stringify(hits.body)).toContain(docId);
    expect([originalsIn(apiDir), originalsIn(workerDir)]).toEqual([[], []]);
  }, 240_000);
});
