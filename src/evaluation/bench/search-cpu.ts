// CPU and wall time of one POST /search, in process (Fastify inject, no socket), over a data set
// the dataset bench loaded and kept (`npm run bench -- --data-dir DIR`): the figure to compare
// before and after a change to the request path. Queries are the data set's, each with a counter
// appended so the embedder's cache never answers. Run it under `node --cpu-prof` for a profile.
//
//   npx tsx src/evaluation/bench/search-cpu.ts --data-dir DIR [--queries 300] [--warmup 30]
//
// With EMBEDDING_PROFILE=use-lite-static the model's query embedding (a worker thread) is ~0.1 ms,
// so the figure is the search path itself; with the default model it includes the embedding.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { BENCH_MARKER, openBenchRuntime, operatorPrincipal } from "./load.js";
import { buildApp } from "../../http/app.js";

const { values: opts } = parseArgs({
  options: { "data-dir": { type: "string" }, queries: { type: "string", default: "300" }, warmup: { type: "string", default: "30" } },
});

async function main(): Promise<void> {
  const dir = opts["data-dir"];
  if (!dir) throw new Error("--data-dir DIR is required: a directory `npm run bench -- --data-dir DIR` loaded");
  const markerFile = path.join(dir, BENCH_MARKER);
  if (!fs.existsSync(markerFile)) throw new Error(`${dir} holds no bench load (no ${BENCH_MARKER}); load one with npm run bench -- --data-dir ${dir}`);
  const marker = JSON.parse(fs.readFileSync(markerFile, "utf8")) as { dataset: string; tenantId: string; collectionId: string };
  const n = Number(opts.queries);
  const warmup = Number(opts.warmup);
  const texts = fs
    .readFileSync(path.join(marker.dataset, "queries.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { text: string }).text);

  const rt = await openBenchRuntime(dir, (m) => process.stderr.write(`${m}\n`));
  const app = await buildApp(rt);
  try {
    const tenant = await rt.store.tenants.get(marker.tenantId);
    if (!tenant) throw new Error(`${dir}: the bench tenant is gone`);
    const key = (await rt.apiKeys.create(operatorPrincipal(tenant), { name: "search-cpu", scopes: ["search"] })).key;
    await app.ready();
    const search = async (i: number) => {
      const r = await app.inject({
        method: "POST",
        url: "/search",
        headers: { authorization: `Bearer ${key}` },
        payload: { collection_id: marker.collectionId, query: `${texts[i % texts.length]} ${i}` },
      });
      if (r.statusCode !== 200) throw new Error(`search answered ${r.statusCode}: ${r.body}`);
      return (JSON.parse(r.body) as { mode: string }).mode;
    };
    for (let i = 0; i < warmup; i++) await search(1_000_000 + i);
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let mode = "";
    for (let i = 0; i < n; i++) mode = await search(i);
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    // the server thread's busy time: what bounds QPS when requests arrive together (CPU also
    // counts onnxruntime's and the pool's other threads)
    const mainThread = performance.eventLoopUtilization(elu0).active;
    const perRequest = (x: number) => Math.round((x / n) * 100) / 100;
    console.log(JSON.stringify({ queries: n, mode, profile: rt.activeProfile.name, cpu_ms_per_request: perRequest((cpu.user + cpu.system) / 1000), main_thread_ms_per_request: perRequest(mainThread), wall_ms_per_request: perRequest(wall) }));
  } finally {
    await app.close();
    await rt.close();
  }
}

await main();
