// Source schedules across real processes, on both queue backends (the jobs table, and BullMQ on
// Redis): an API process that also works (`serve`) and a second worker process (`worker`) tick
// every second over six sources due at the same moment (their ticks may overlap); each due run
// starts exactly one crawl and no process even tries a second one. Then both are SIGKILLed, the
// runs fall due while nothing runs, and two processes started again start each run once.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIGHT_ENV, PLATFORM_KEY } from "../kit/index.js";
import { freePort, killQuarries, spawnQuarry, stopQuarries, until, type QuarryProcess } from "../helpers/process.js";
import { openDeploymentSql } from "../helpers/store-sql.js";
import { html, send, serve } from "../crawl/fixtures.js";
import { dropPrefix, QUEUE_SHAPES, REDIS_URL } from "../jobs/redis.js";

const SOURCES = 6;
const dirs: string[] = [];
afterAll(() => {
  killQuarries();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** SIGKILL, resolved once the process is gone. */
const kill9 = ({ child }: QuarryProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill("SIGKILL"))));

describe.each(QUEUE_SHAPES)("schedules across processes (%s)", (shape, envOf) => {
  it("two processes start each due run once, also after both were SIGKILLed and started again", async (ctx) => {
    const extra = await envOf();
    if (!extra) {
      console.log(`skipping schedules across processes on ${shape}: Redis is not reachable at ${REDIS_URL}`);
      return ctx.skip();
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-schedules-"));
    dirs.push(dataDir);
    const site = await serve((req, res) => send(req, res, { body: html("Home", "<p>The only page.</p>") }));
    try {
      const port = await freePort();
      const env = { ...LIGHT_ENV, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", DEFAULT_PLAN: "enterprise", CRAWL_ALLOW_PRIVATE_NETWORKS: "true", SCHEDULE_CHECK_SECONDS: "1", ...extra };
      const url = `http://127.0.0.1:${port}`;
      const call = async (method: string, p: string, key: string, body?: unknown) => {
        const r = await fetch(url + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
        return { status: r.status, body: (await r.json().catch(() => null)) as any };
      };
      const start = async () => {
        const procs = [spawnQuarry("serve", ["serve"], env), spawnQuarry("worker", ["worker"], env)];
        await until(() => fetch(`${url}/health`).then((r) => r.ok || r.status === 503), "the API process", 120_000);
        return procs;
      };
      const crawls = async (key: string) => (await call("GET", "/crawl", key)).body as any[];
      const fireAll = async () => {
        // every schedule falls due at the same moment
        const sql = await openDeploymentSql(dataDir, null, { write: true });
        await sql.run("UPDATE source_schedules SET next_run_at = ?", new Date(Date.now() - 60_000).toISOString());
        await sql.close();
      };
      const settled = async (key: string, n: number, procs: QuarryProcess[]) => {
        const all = await until(async () => ((await crawls(key)).length >= n ? crawls(key) : null), `${n} crawls`, 150_000);
        await until(async () => (await crawls(key)).every((c) => c.status === "completed"), "the crawls to complete", 150_000);
        await new Promise((r) => setTimeout(r, 2_500)); // more ticks of both processes: nothing else starts
        expect((await crawls(key)).length).toBe(n);
        expect(new Set(all.map((c) => c.data_source_id)).size).toBe(SOURCES);
        for (const p of procs) expect(p.output()).not.toContain("scheduled sync skipped");
      };

      let procs = await start();
      const key = (await call("POST", "/tenants", PLATFORM_KEY, { name: "Schedules" })).body.admin_key.key as string;
      const configuration = { url: `${site.base}/`, max_depth: 0, page_limit: 1, render_js: false, include_paths: [] };
      for (let i = 0; i < SOURCES; i++) {
        const src = (await call("POST", "/data-sources", key, { name: `site ${i}`, source_type: "website", configuration })).body.id;
        expect((await call("PUT", `/data-sources/${src}/schedule`, key, { schedule: "daily" })).status).toBe(200);
      }
      await fireAll();
      await settled(key, SOURCES, procs);

      await Promise.all(procs.map(kill9));
      await fireAll(); // due while no process runs
      procs = await start();
      await settled(key, 2 * SOURCES, procs);
      const schedules = await Promise.all((await crawls(key)).slice(0, SOURCES).map(async (c) => (await call("GET", `/data-sources/${c.data_source_id}/schedule`, key)).body));
      expect(schedules.every((s) => s.schedule === "daily" && Date.parse(s.next_run_at) > Date.now() && s.last_run_at)).toBe(true);
      await stopQuarries(...procs);
    } finally {
      await site.close();
      if (extra.QUEUE_PREFIX) await dropPrefix(extra.QUEUE_PREFIX);
    }
  }, 400_000);
});
