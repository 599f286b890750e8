// A graceful restart under search load loses no logged search (issue 29): a real server process
// answers searches from four clients, is sent SIGTERM mid-stream, and is started again on the same
// DATA_DIR (and database, under TEST_STORE=postgres). Every search_id that came back with a 200
// must be in the log afterwards, and nothing else. The first process writes its log only every
// minute, so only the shutdown's own write can have saved them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PLATFORM_KEY } from "../kit/index.js";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { callProcess, startServerProcess, type ServerProcess } from "../helpers/process.js";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-anrestart-"));
let database: TestDatabase | null = null;
const procs: ServerProcess[] = [];

beforeAll(async () => {
  if (process.env.TEST_STORE === "postgres") database = await createTestDatabase("quarry_anrestart");
});
afterAll(async () => {
  for (const p of procs) await p.kill9();
  fs.rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

async function start(flushMs: number): Promise<ServerProcess> {
  const p = await startServerProcess(dataDir, { ANALYTICS_FLUSH_MS: String(flushMs), DEFAULT_PLAN: "enterprise", ...(database ? { DATABASE_URL: database.url } : {}) });
  procs.push(p);
  return p;
}

const call = callProcess;

test("SIGTERM under searches, restart: every answered search_id is logged, exactly once", async () => {
  const from = new Date(Date.now() - 60_000).toISOString();
  let p = await start(60_000);
  const t = await call(p, "POST", "/tenants", PLATFORM_KEY, { name: "Restart" });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  const key = t.body.admin_key.key as string;
  const collection = (await call(p, "POST", "/collections", key, { name: "Docs" })).body.id as string;

  const answered: string[] = [];
  let refused = 0;
  let stopping = false;
  const client = async (c: number) => {
    for (let i = 0; !stopping; i++) {
      try {
        const r = await call(p, "POST", "/search", key, { collection_id: collection, query: `turbine ${c} ${i % 5}` });
        if (r.status === 200) answered.push(r.body.search_id);
        else refused++;
      } catch {
        // the port is closed: the process is on its way out
        refused++;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  const clients = [0, 1, 2, 3].map(client);
  while (answered.length < 40) await new Promise((r) => setTimeout(r, 20));
  const exited = new Promise<number | null>((resolve) => p.child.once("exit", (code) => resolve(code)));
  p.child.kill("SIGTERM");
  expect(await exited, p.output()).toBe(0);
  stopping = true;
  await Promise.all(clients);
  expect(refused).toBeGreaterThan(0); // the clients were still searching when it stopped

  p = await start(20);
  const report = await call(p, "GET", `/analytics/searches?interval=hour&from=${encodeURIComponent(from)}`, key);
  expect(report.status).toBe(200);
  expect(report.body.data.reduce((a: number, d: { searches: number }) => a + d.searches, 0)).toBe(answered.length);
  expect(new Set(answered).size).toBe(answered.length);
  // each answered id is there (feedback on an unknown id is 404)
  for (const id of answered) expect((await call(p, "POST", `/searches/${id}/events`, key, { type: "click", document_id: "doc_0", position: 1 })).status, id).toBe(202);
  const exitedAgain = new Promise<number | null>((resolve) => p.child.once("exit", (code) => resolve(code)));
  p.child.kill("SIGTERM");
  expect(await exitedAgain).toBe(0);
}, 240_000);
