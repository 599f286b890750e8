// What the search log adds to /search (issue 29 target: ≤ 5 % on p95 at 8 concurrent clients),
// measured in one run: rounds alternate logging on and off (PATCH /analytics/settings) over one
// server on loopback, so drift on a shared machine falls on both sides alike.
// Usage: npx tsx src/evaluation/bench/analytics-overhead.ts [searches per round = 2000] [rounds = 6] [documents = 300]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../config.js";
import { createRuntime } from "../../runtime.js";
import { buildApp } from "../../http/app.js";

const PER_ROUND = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 6);
const DOCS = Number(process.argv[4] ?? 300);
const CLIENTS = 8;
const PLATFORM = "bench-platform-key-0123456789";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "anoverhead-"));
const config = loadConfig({ ...process.env, DATA_DIR: dir, PORT: "0", PLATFORM_API_KEY: PLATFORM, LOG_LEVEL: "silent", DEFAULT_PLAN: "enterprise", RATE_LIMIT_PER_MINUTE: "0" });
const rt = await createRuntime(config);
const app = await buildApp(rt);
await app.listen({ port: 0, host: "127.0.0.1" });
const addr = app.server.address();
const base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;

async function call(method: string, p: string, key: string, body?: unknown): Promise<any> {
  const r = await fetch(base + p, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

const key = (await call("POST", "/tenants", PLATFORM, { name: "Overhead" })).admin_key.key as string;
const source = (await call("POST", "/data-sources", key, { name: "Docs", source_type: "upload" })).id;
const collection = (await call("POST", "/collections", key, { name: "Docs", data_source_ids: [source] })).id;
const words = "gearbox oil interval blade erosion tower bolt torque yaw motor generator bearing grease cable sensor alarm brake nacelle rotor pitch hub shaft coupling filter pump valve".split(" ");
let seed = 11;
const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n);
for (let b = 0; b < DOCS; b += 50) {
  const form = new FormData();
  form.append("data_source_id", source);
  for (let i = b; i < Math.min(DOCS, b + 50); i++) {
    const text = `# ${words[i % words.length]} ${i}\n\n${Array.from({ length: 120 }, () => words[rand(words.length)]).join(" ")}.\n`;
    form.append("files", new Blob([text], { type: "text/markdown" }), `d${i}.md`);
  }
  const r = await fetch(`${base}/documents/upload`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  if (r.status >= 300) throw new Error(`upload: ${r.status}`);
}
for (;;) {
  const docs = (await call("GET", `/documents?data_source_id=${source}&limit=1000`, key)) as { status: string }[];
  if (docs.length >= DOCS && docs.every((d) => d.status === "indexed" || d.status === "failed")) break;
  await new Promise((r) => setTimeout(r, 200));
}

const queries = Array.from({ length: 500 }, () => `${words[rand(words.length)]} ${words[rand(words.length)]}`);
async function round(): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < PER_ROUND) {
        const q = queries[next++ % queries.length];
        const t = performance.now();
        await call("POST", "/search", key, { collection_id: collection, query: q });
        times.push(performance.now() - t);
      }
    }),
  );
  return times;
}
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1]!;
await round(); // warm-up
const on: number[] = [];
const off: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const logging = r % 2 === 0;
  await call("PATCH", "/analytics/settings", key, { logging });
  (logging ? on : off).push(...(await round()));
}
const mode = (await call("POST", "/search", key, { collection_id: collection, query: "gearbox" })).mode;
await rt.analytics.flush();
const logged = (await call("GET", "/analytics/queries?limit=1", key)).data.length > 0;
const result = {
  store: rt.store.kind, mode, clients: CLIENTS, searches_each: on.length, logged,
  p50_on_ms: +p(on, 0.5).toFixed(2), p50_off_ms: +p(off, 0.5).toFixed(2),
  p95_on_ms: +p(on, 0.95).toFixed(2), p95_off_ms: +p(off, 0.95).toFixed(2),
  p95_overhead_pct: +((p(on, 0.95) / p(off, 0.95) - 1) * 100).toFixed(1),
};
console.log(JSON.stringify(result));
await app.close();
await rt.close();
fs.rmSync(dir, { recursive: true, force: true });
