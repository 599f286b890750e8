// API and worker processes (`serve --no-worker` and `worker`) on one DATA_DIR, with the queue in
// the database and, when Redis answers, on BullMQ: the API process runs no jobs, a worker process
// indexes what the API accepted, and after a worker is killed with SIGKILL mid-ingest another one
// takes over, every document ending indexed once.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PLATFORM_KEY } from "../kit/index.js";
import { dropPrefix, QUEUE_SHAPES, REDIS_URL } from "./redis.js";
import { freePort, killQuarries, spawnQuarry, stopQuarries, until } from "../helpers/process.js";

const DOCS = 16;
const dirs: string[] = [];
afterAll(() => {
  killQuarries();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe.each(QUEUE_SHAPES)("API and worker processes (%s)", (shape, envOf) => {
  it("the API process runs no jobs; workers index everything once, also after one is SIGKILLed", async (ctx) => {
    const extra = await envOf();
    if (!extra) {
      console.log(`skipping process split on ${shape}: Redis is not reachable at ${REDIS_URL}`);
      return ctx.skip();
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-split-"));
    dirs.push(dataDir);
    try {
      const port = await freePort();
      const env = { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", DEFAULT_PLAN: "enterprise", ...extra };
      const api = spawnQuarry("api", ["serve", "--no-worker"], env);
      const url = `http://127.0.0.1:${port}`;
      const call = async (method: string, p: string, key: string, body?: unknown) => {
        const isForm = body instanceof FormData;
        const r = await fetch(url + p, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body && !isForm ? { "content-type": "application/json" } : {}) },
          body: isForm ? body : body ? JSON.stringify(body) : undefined,
        });
        return { status: r.status, body: (await r.json()) as any };
      };
      await until(() => fetch(`${url}/health`).then((r) => r.ok || r.status === 503), "the API process", 120_000);

      const t = await call("POST", "/tenants", PLATFORM_KEY, { name: "Split" });
      const key = t.body.admin_key.key as string;
      const src = (await call("POST", "/data-sources", key, { name: "docs", source_type: "upload" })).body.id as string;
      const form = new FormData();
      form.append("data_source_id", src);
      for (let i = 0; i < DOCS; i++) {
        const text = `# Report ${i}\n\n` + Array.from({ length: 40 }, (_, k) => `Line ${k} of report ${i} on harbour cranes and cargo.`).join(" ");
        form.append("files", new Blob([text], { type: "text/markdown" }), `report-${i}.md`);
      }
      const up = await call("POST", "/documents/upload", key, form);
      expect(up.status).toBe(202);
      const health = await (await fetch(`${url}/health`)).json();
      expect(health.checks.queue.detail).toMatch(/no workers in this process/);
      await new Promise((r) => setTimeout(r, 1_500));
      const docs = async () => (await call("GET", `/documents?data_source_id=${src}`, key)).body as any[];
      expect((await docs()).every((d) => d.status === "queued")).toBe(true); // nobody runs jobs yet

      const first = spawnQuarry("first worker", ["worker"], env);
      await until(async () => (await docs()).some((d) => d.status === "indexed"), "the first worker to index", 90_000);
      first.child.kill("SIGKILL");
      await new Promise((r) => first.child.once("exit", r));
      const pending = (await docs()).filter((d) => d.status !== "indexed").length;
      expect(pending).toBeGreaterThan(0);

      const second = spawnQuarry("second worker", ["worker"], env);
      const final = await until(
        async () => {
          const d = await docs();
          return d.length === DOCS && d.every((x) => x.status === "indexed") ? d : null;
        },
        "every document to be indexed by the second worker",
        150_000,
      );
      expect(new Set(final.map((d) => d.source)).size).toBe(DOCS);
      expect(final.every((d) => d.chunk_count > 0)).toBe(true);
      // stopped before their keys are dropped, so no dispatcher writes after the cleanup
      await stopQuarries(second, api);
    } finally {
      if (extra.QUEUE_PREFIX) await dropPrefix(extra.QUEUE_PREFIX);
    }
  }, 400_000);
});
