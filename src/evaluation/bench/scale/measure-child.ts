// Entry of the measuring process: `node --import tsx measure-child.ts <job.json> <result.json>`.
// Opens the runtime on the layout's DATA_DIR as a restarted server would, then runs measure().
import fs from "node:fs";
import { openBenchRuntime } from "../load.js";
import { benchRuntime, lookupEmbedder, reopenTenant, type BenchTenant } from "./adapter.js";
import { measure, type MeasureJob } from "./measure.js";
import { measureFilters, type FilterJob } from "./measure-filters.js";
import { hash32, prng } from "./rng.js";
import { randomUnit } from "./vectors.js";

export interface ChildJob extends Omit<MeasureJob, "tenants" | "queries"> {
  dataDir: string;
  vectors: "synthetic" | "model";
  tenants: Omit<BenchTenant, "principal">[];
  queries: (MeasureJob["queries"][number] & { vector: number[] })[];
  /** --filters */
  filters?: FilterJob;
}

async function main(jobFile: string, resultFile: string): Promise<void> {
  const job = JSON.parse(fs.readFileSync(jobFile, "utf8")) as ChildJob;
  const log = (m: string) => process.stderr.write(`  ${m}\n`);
  const t0 = performance.now();
  const rt = await openBenchRuntime(job.dataDir, log);
  const openMs = performance.now() - t0;
  try {
    // the lexical indexes load in the background after start; measure the steady state after it
    const w0 = performance.now();
    const warmed = (await rt.store.content.warmUp?.()) ?? 0;
    log(`lexical warm-up: ${warmed} tenants in ${((performance.now() - w0) / 1000).toFixed(1)} s`);
    const tenants = await Promise.all(job.tenants.map((t) => reopenTenant(rt, t)));
    const dim = rt.activeProfile.dimension;
    // synthetic vectors: queries are answered with the vectors the bench made for them
    const embedder =
      job.vectors === "synthetic"
        ? lookupEmbedder(rt.activeProfile, new Map(job.queries.map((q) => [q.text, Float32Array.from(q.vector)])), (text) => randomUnit(dim, prng(hash32(text))))
        : null;
    const view = benchRuntime(rt, embedder);
    const measured = await measure(view, { ...job, tenants }, embedder ? rt.embedder : null);
    const filters = job.filters ? await measureFilters(view, tenants, job.queries, job.recallQueries, job.filters) : undefined;
    fs.writeFileSync(resultFile, JSON.stringify({ open_ms: openMs, ...measured, ...(filters ? { filters } : {}) }));
  } finally {
    await rt.close();
  }
}

const [jobFile, resultFile] = process.argv.slice(2);
main(jobFile, resultFile).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
