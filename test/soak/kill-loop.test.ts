// kill -9 in a loop while a client uploads: after every crash the server restarts on the same
// DATA_DIR and the client retries what was not acknowledged (same names, as a real client
// would). At the end every file is a document exactly once, indexed, and no document exists that
// the client did not send or that lost its bytes. `npm run soak` kills 20 times, npm test twice.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { PLATFORM_KEY } from "../kit/index.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";
import { multipart, waitFor } from "../content/helpers.js";
import { FULL, size } from "./soak-env.js";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-killloop-"));
const env = { DEFAULT_PLAN: "enterprise", EMBEDDING_PROFILE: "bge-small-en-v1.5", MODELS_DIR: path.join(dataDir, "no-models"), ALLOW_MODEL_DOWNLOAD: "false" };
let p: ServerProcess | null = null;

afterAll(async () => {
  await p?.kill9();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function api(method: string, route: string, key: string, body?: unknown) {
  const res = await fetch(p!.url + route, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

const file = (round: number, i: number) => ({
  name: `r${String(round).padStart(2, "0")}-f${i}.md`,
  data: `# Round ${round} file ${i}\n\nNotes written in round ${round}, file ${i}, about durable uploads.\n`,
});

type Doc = { source: string; status: string; error: string | null };

/** Every document of the source, following the Link rel="next" pages. */
async function allDocuments(key: string, sourceId: string): Promise<Doc[]> {
  const out: Doc[] = [];
  let next: string | null = `/documents?data_source_id=${sourceId}&limit=200`;
  while (next) {
    const res: Response = await fetch(p!.url + next, { headers: { authorization: `Bearer ${key}` } });
    out.push(...((await res.json()) as Doc[]));
    next = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "")?.[1] ?? null;
  }
  return out;
}

/** Uploads one batch; true when the server acknowledged it with 202. */
async function uploadBatch(key: string, sourceId: string, files: { name: string; data: string }[]): Promise<boolean> {
  const mp = multipart({ data_source_id: sourceId }, files);
  try {
    const res = await fetch(p!.url + "/documents/upload", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": mp.contentType },
      body: new Uint8Array(mp.body),
    });
    await res.arrayBuffer();
    return res.status === 202;
  } catch {
    return false; // the connection died with the process
  }
}

if (!FULL) console.log("kill loop skipped in npm test (each restart costs seconds); run it with npm run soak. test/content/durability.test.ts covers one kill -9.");

it.skipIf(!FULL)(`survives ${size(2, 20)} kill -9 during uploads with no acknowledged document lost, duplicated or stuck`, async () => {
  const kills = size(2, 20);
  p = await startServerProcess(dataDir, env);
  const t = await api("POST", "/tenants", PLATFORM_KEY, { name: "Crash test" });
  const key = t.body.admin_key.key as string;
  const sourceId = (await api("POST", "/data-sources", key, { name: "crashy", source_type: "upload" })).body.id as string;
  const sent = new Set<string>();
  let pending: { name: string; data: string }[][] = [];

  for (let round = 0; round < kills; round++) {
    const batches = [...pending, ...Array.from({ length: 3 }, (_, b) => Array.from({ length: 4 }, (_, i) => file(round, b * 4 + i)))];
    pending = [];
    const uploads = batches.map(async (batch, i) => {
      await new Promise((r) => setTimeout(r, i * 15));
      for (const f of batch) sent.add(f.name);
      if (!(await uploadBatch(key, sourceId, batch))) pending.push(batch);
    });
    // the kill lands somewhere inside the uploads and the ingest that follows them
    await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 150)));
    await p.kill9();
    await Promise.all(uploads);
    p = await startServerProcess(dataDir, env);
  }
  for (const batch of pending) expect(await uploadBatch(key, sourceId, batch)).toBe(true);

  let last: Doc[] = [];
  const docs = await waitFor(
    async () => {
      last = await allDocuments(key, sourceId);
      return last.length === sent.size && last.every((d) => d.status === "indexed" || d.status === "failed") ? last : null;
    },
    "every sent document to settle",
    180_000,
    500,
  ).catch((err: Error) => {
    const pendingNow = last.filter((d) => d.status !== "indexed" && d.status !== "failed").length;
    const missing = [...sent].filter((n) => !last.some((d) => d.source === n));
    throw new Error(`${err.message}: ${last.length} documents for ${sent.size} files, ${pendingNow} pending, missing ${missing.slice(0, 5).join(", ")}`);
  });
  expect(docs.filter((d) => d.status !== "indexed").map((d) => `${d.source}: ${d.error}`)).toEqual([]);
  expect(new Set(docs.map((d) => d.source))).toEqual(sent);
  console.log(`kill loop: ${kills} kills, ${sent.size} files, all indexed once`);
}, size(240_000, 1_800_000));
