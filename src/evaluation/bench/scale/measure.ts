// The measurements of one loaded layout, run in a fresh process on the built DATA_DIR (see
// measure-child.ts) so that resident memory is Quarry's own (runtime, indexes, server) and not the
// bench's corpus. Latency per mode in process (the search service) and over HTTP (a real server
// on loopback, search-scope API key), vector recall@10 against the exact top 10.
import fs from "node:fs";
import type { Runtime } from "../../../runtime.js";
import { percentile } from "../../ranking-metrics.js";
import { searchInProcess, searchOverHttp, startServer, type BenchTenant, type Mode } from "./adapter.js";
import { recallAt } from "./exact.js";
import { createProgress } from "./progress.js";

export interface Latency {
  count: number;
  errors: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export interface MeasureJob {
  tenants: BenchTenant[];
  queries: { q: number; tenant: number; kind: string; text: string }[];
  truthAll: Record<number, string[]>;
  truthSide: Record<number, string[]>;
  recallQueries: number;
  http: boolean;
}

export interface Measured {
  in_process: Record<Mode, Latency>;
  http: Record<Mode, Latency> | null;
  recall_at_10: { all: number | null; filtered: number | null; queries: number };
  query_embedding: Latency | null;
  memory: { rss_bytes: number; peak_rss_bytes: number | null; heap_used_bytes: number };
  answered_as: string[];
}

const WARMUP = 10;
const MODES: Mode[] = ["lexical", "vector", "hybrid"];

export function summarize(samples: number[], errors = 0): Latency {
  const n = samples.length;
  return {
    count: n,
    errors,
    mean: n ? samples.reduce((a, b) => a + b, 0) / n : null,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: n ? samples.reduce((a, b) => (b > a ? b : a), -Infinity) : null,
  };
}

/** runs `one` for every query after a warm-up on the first ones; errors are counted, not timed out */
async function timed(label: string, job: MeasureJob, one: (q: MeasureJob["queries"][number]) => Promise<boolean>): Promise<Latency> {
  for (const q of job.queries.slice(0, WARMUP)) await one(q).catch(() => false);
  const samples: number[] = [];
  let errors = 0;
  const progress = createProgress(label, job.queries.length);
  for (const q of job.queries) {
    const t0 = performance.now();
    const ok = await one(q).catch(() => false);
    samples.push(performance.now() - t0);
    if (!ok) errors++;
    progress.update(samples.length);
  }
  progress.finish();
  return summarize(samples, errors);
}

async function recall(rt: Runtime, job: MeasureJob): Promise<Measured["recall_at_10"]> {
  const qs = job.queries.filter((q) => job.truthAll[q.q]).slice(0, job.recallQueries);
  let all = 0;
  let side = 0;
  for (const q of qs) {
    const t = job.tenants[q.tenant];
    const found = await searchInProcess(rt, t, t.allCollectionId, q.text, "vector");
    all += recallAt(found.keys, job.truthAll[q.q]);
    const foundSide = await searchInProcess(rt, t, t.sideCollectionId, q.text, "vector");
    side += recallAt(foundSide.keys, job.truthSide[q.q]);
  }
  return { all: qs.length ? all / qs.length : null, filtered: qs.length ? side / qs.length : null, queries: qs.length };
}

function peakRss(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** the real model's query embedding alone, on new texts (the synthetic path leaves it out of hybrid) */
async function queryEmbedding(model: Runtime["embedder"], job: MeasureJob): Promise<Latency | null> {
  if (!model || model.status().state !== "ready") return null;
  let n = 0; // a new text every call: the embedder caches repeated queries, warm-up included
  return timed("model query embedding", job, async (q) => (await model.embedQuery(`${q.text} (${n++})`)).length > 0);
}

export async function measure(rt: Runtime, job: MeasureJob, model: Runtime["embedder"]): Promise<Measured> {
  const answeredAs = new Set<string>();
  const inProcess = {} as Record<Mode, Latency>;
  for (const mode of MODES) {
    inProcess[mode] = await timed(`in process, ${mode}`, job, async (q) => {
      const t = job.tenants[q.tenant];
      answeredAs.add(`${mode} as ${(await searchInProcess(rt, t, t.allCollectionId, q.text, mode)).mode}`);
      return true;
    });
  }
  const rec = await recall(rt, job);
  let http: Record<Mode, Latency> | null = null;
  if (job.http) {
    const { app, url } = await startServer(rt);
    try {
      http = {} as Record<Mode, Latency>;
      for (const mode of MODES) http[mode] = await timed(`HTTP, ${mode}`, job, async (q) => (await searchOverHttp(url, job.tenants[q.tenant], q.text, mode)) === 200);
    } finally {
      await app.close();
    }
  }
  const embedding = await queryEmbedding(model, job);
  const mem = process.memoryUsage();
  return {
    in_process: inProcess,
    http,
    recall_at_10: rec,
    query_embedding: embedding,
    memory: { rss_bytes: mem.rss, peak_rss_bytes: peakRss(), heap_used_bytes: mem.heapUsed },
    answered_as: [...answeredAs],
  };
}
