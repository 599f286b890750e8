// One layout end to end: build it in a fresh DATA_DIR (this process), compute the exact top 10,
// close the runtime, then measure in a fresh process on the same directory (measure-child.ts).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { openBenchRuntime } from "../load.js";
import type { Corpus } from "./corpus.js";
import type { DfSample } from "./queries.js";
import { loadLayout, type Layout, type Loaded } from "./loader.js";
import { exactTopK } from "./exact.js";
import { exactFilteredVectors } from "./exact-filtered.js";
import { BENCH_FILTERS, filterShares } from "./filters.js";
import type { FilterJob } from "./measure-filters.js";
import { modelVectors, syntheticVectors } from "./vector-source.js";
import { createProgress } from "./progress.js";
import type { Runtime } from "../../../runtime.js";
import type { ChildJob } from "./measure-child.js";
import type { Measured } from "./measure.js";
import type { ScaleOptions } from "./options.js";
import type { LayoutResult } from "./report.js";

const log = (m: string) => process.stderr.write(`${m}\n`);

/** bytes of every file under dir (the database, its WAL, stored files), models left out */
export function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += e.name === "models" ? 0 : dirBytes(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

/**
 * Waits until the vector graphs hold every stored vector (the store's background catch-up), with
 * progress: the measuring process should open finished graphs, as a server restarted after a
 * bulk load long ago would, and the time it takes is the bench's "graph" figure.
 */
async function waitForGraphs(rt: Runtime): Promise<number> {
  const index = rt.activeProfile.index_name!;
  const t0 = performance.now();
  const first = await rt.store.content.vectorIndexStatus(index);
  const progress = createProgress("vector graphs", first.behind);
  for (;;) {
    const s = await rt.store.content.vectorIndexStatus(index);
    progress.update(Math.max(0, first.behind - s.behind));
    if (s.behind === 0 && s.building === 0) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  progress.finish();
  return performance.now() - t0;
}

/** --filters: which documents each filter selects, and the exact vector rankings to hold it to */
function filterJob(loaded: Loaded, vectors: Parameters<typeof exactTopK>[2], recallQueries: number, tenantChunks: number): FilterJob {
  return {
    passes: BENCH_FILTERS.map((f) => loaded.docs.filter((d) => d.metadata && f.holds(d.metadata)).map((d) => d.documentId)),
    shares: filterShares(loaded.docs),
    vectorTruth: exactFilteredVectors(loaded.docs, loaded.queries.slice(0, recallQueries), vectors, loaded.chunks),
    tenantChunks,
  };
}

async function build(o: ScaleOptions, corpus: Corpus, df: DfSample, layout: Layout, dir: string): Promise<{ loaded: Loaded; job: ChildJob }> {
  const rt = await openBenchRuntime(dir, log);
  try {
    if (o.vectors === "model" && rt.embedder?.status().state !== "ready") throw new Error("--vectors model: the embedding model is not available");
    const vectors = o.vectors === "model" ? modelVectors(rt.embedder!) : syntheticVectors(rt.activeProfile.dimension, o.clusters, o.seed);
    const loaded = await loadLayout(rt, corpus, layout, vectors, df, o);
    const truth = exactTopK(loaded.docs, loaded.queries.slice(0, o.recallQueries), vectors, loaded.chunks);
    const filters = o.filters ? filterJob(loaded, vectors, o.recallQueries, layout.chunksPerTenant) : undefined;
    loaded.graphMs = await waitForGraphs(rt);
    const job: ChildJob = {
      ...(filters ? { filters } : {}),
      dataDir: dir,
      vectors: o.vectors,
      tenants: loaded.tenants.map(({ principal: _p, ...t }) => t),
      queries: loaded.queries.map((q) => ({ q: q.q, tenant: q.tenant, kind: q.kind, text: q.text, vector: Array.from(q.vector) })),
      truthAll: Object.fromEntries(truth.all),
      truthSide: Object.fromEntries(truth.side),
      recallQueries: o.recallQueries,
      http: o.http,
    };
    return { loaded, job };
  } finally {
    await rt.close();
  }
}

function measureInChild(job: ChildJob, dir: string): Promise<Measured & Pick<LayoutResult, "open_ms" | "filters">> {
  const jobFile = path.join(dir, "scale-job.json");
  const resultFile = path.join(dir, "scale-result.json");
  fs.writeFileSync(jobFile, JSON.stringify(job));
  const entry = fileURLToPath(new URL("./measure-child.ts", import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", entry, jobFile, resultFile], { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`the measuring process exited with ${code}`));
      resolve(JSON.parse(fs.readFileSync(resultFile, "utf8")) as Measured & Pick<LayoutResult, "open_ms" | "filters">);
    });
  });
}

export async function runLayout(o: ScaleOptions, corpus: Corpus, df: DfSample, layout: Layout): Promise<LayoutResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-scale-"));
  try {
    log(`${layout.label}: building in ${dir}`);
    const { loaded, job } = await build(o, corpus, df, layout, dir);
    const disk = dirBytes(dir);
    log(`${layout.label}: ${loaded.chunks} chunks in ${(loaded.buildMs / 1000).toFixed(1)} s (store writes ${(loaded.writeMs / 1000).toFixed(1)} s), ${(disk / 2 ** 20).toFixed(0)} MB on disk; measuring in a fresh process`);
    const measured = await measureInChild(job, dir);
    const keyword = loaded.queries.filter((q) => q.kind === "keyword").length;
    return {
      label: layout.label,
      tenants: layout.tenants,
      chunks_per_tenant: layout.chunksPerTenant,
      chunks: loaded.chunks,
      documents: loaded.docs.length,
      composed_chunks: loaded.composedChunks,
      queries: { count: loaded.queries.length, keyword, question: loaded.queries.length - keyword },
      build_ms: loaded.buildMs,
      write_ms: loaded.writeMs,
      graph_ms: loaded.graphMs,
      chunks_per_s: loaded.chunks / (loaded.writeMs / 1000),
      disk_bytes: disk,
      disk_bytes_per_chunk: disk / loaded.chunks,
      ...measured,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
