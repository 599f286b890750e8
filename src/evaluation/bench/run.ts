// `quarry bench`: load -> quality per mode -> suite cross-check -> speed over HTTP -> ingest
// throughput, then the JSON + Markdown report (`--scale N` runs the scale bench instead, scale.ts). Progress goes to stderr, the
// Markdown table to stdout.
import path from "node:path";
import { loadConfig } from "../../config.js";
import { beirDataDir } from "../benchmarks/industry-benchmarks.js";
import { findDataset } from "../beir/beir-catalog.js";
import type { BenchOptions } from "./args.js";
import { loadBenchContext, openBenchRuntime, operatorPrincipal, type BenchContext } from "./load.js";
import { loadedModel } from "./load-marker.js";
import { customSettings, evaluateSetup, measureQuality, modeSpecs, searchSettings } from "./quality.js";
import { measureSpeed } from "./speed.js";
import { measureIngest } from "./ingest.js";
import { checkTargets, machineInfo, renderComparison, renderMarkdown, writeReport, type BenchReport, type SuiteCheck } from "./report.js";
import { openBenchPostgres } from "./postgres.js";
import { openBenchCitus, type BenchCitus } from "./citus.js";
import type { Runtime } from "../../runtime.js";

const log = (m: string) => process.stderr.write(`${m}\n`);

/** The suite made by the import, run through the benchmark service, against the bench's own computation. */
async function suiteCheck(ctx: BenchContext, rt: Runtime): Promise<SuiteCheck | null> {
  if (!ctx.suiteId) return null;
  const { principal } = ctx;
  const suite = await rt.benchmarks.row(principal, ctx.suiteId);
  const run = await rt.benchmarks.run(principal, ctx.suiteId);
  if (run.status !== "completed") throw new Error(`the suite run failed: ${run.error}`);
  const queryIds = (suite.origin.query_ids as string[] | undefined) ?? [];
  const settings = await searchSettings(rt, ctx.tenant.id, ctx.collectionId);
  const bench = await evaluateSetup(rt, ctx.tenant.id, ctx.collectionId, ctx.queries, ctx.qrels, queryIds, { mode: "hybrid", settings }, suite.top_k);
  const runNdcg = Number(run.metrics.ndcg_at_k);
  return {
    suite_id: ctx.suiteId,
    run_ndcg_at_10: runNdcg,
    bench_ndcg_at_10: bench.ndcg,
    equal_to_3_decimals: runNdcg.toFixed(3) === bench.ndcg.toFixed(3),
  };
}

type Measured = Pick<BenchReport, "quality" | "suite_check" | "speed" | "ingest">;

/** Quality per mode, the suite cross-check, speed over HTTP and ingest throughput of one store's runtime. */
async function measureStore(ctx: BenchContext, rt: Runtime, o: BenchOptions, ingestEnv: Record<string, string> | null): Promise<Measured> {
  const principal = ctx.principal;
  const base = await searchSettings(rt, ctx.tenant.id, ctx.collectionId);
  log(`quality on ${ctx.queryIds.length} ${ctx.split} queries (${rt.store.kind}):`);
  const quality = await measureQuality(rt, ctx.tenant.id, ctx.collectionId, ctx.queries, ctx.qrels, ctx.queryIds, modeSpecs(base, o), log);
  const check = await suiteCheck(ctx, rt);
  if (check) log(`suite run nDCG@10 ${check.run_ndcg_at_10.toFixed(4)} vs bench ${check.bench_ndcg_at_10.toFixed(4)}`);

  let speed = null;
  if (o.http) {
    // command-line fusion settings reach POST /search as the collection's settings (BM25 column
    // weights and depth are deployment settings the API cannot take; they only affect quality rows)
    const custom = customSettings(base, o);
    const before = (await rt.store.content.getCollection(ctx.tenant.id, ctx.collectionId))!.settings;
    if (custom) {
      await rt.collections.update(principal, ctx.collectionId, {
        settings: { ...before, fusion: custom.fusion.method, lexical_weight: custom.fusion.lexicalWeight, vector_weight: custom.fusion.vectorWeight },
      });
    }
    log(`speed over HTTP (${rt.store.kind}):`);
    const seen = new Set(ctx.queryIds.map((q) => ctx.queries.get(q)!));
    try {
      speed = await measureSpeed(rt, principal, ctx.collectionId, [...ctx.queries.values()], seen, o, log);
    } finally {
      if (custom) await rt.collections.update(principal, ctx.collectionId, { settings: before });
    }
  }
  let ingest = null;
  if (o.ingest && ingestEnv) {
    log(`ingest throughput (${rt.store.kind}):`);
    // the embedding path does not depend on the store: measured on the first store only
    const sample = Object.keys(ingestEnv).length === 0 ? 200 : 0;
    // a copied load (postgres) has no indexing time of its own: its "full" row would be SQLite's
    const load = rt === ctx.rt ? ctx.load : { ...ctx.load, reused: true };
    ingest = await measureIngest(o.dataset, o.split, load, { maxDocuments: o.maxDocuments, limitQueries: o.limitQueries, embeddingSampleDocs: sample }, log, ingestEnv);
  }
  return { quality, suite_check: check, speed, ingest };
}

type MakeReport = (m: Measured, store: string, extra?: Partial<BenchReport>) => BenchReport;

/** The load copied by migrate-data into a PostgreSQL database (on a Citus cluster with `citus`), measured there. */
async function measureCopy(ctx: BenchContext, o: BenchOptions, citus: BenchCitus | null, report: MakeReport): Promise<BenchReport> {
  const pgRun = await openBenchPostgres({ ...o, ...(citus ? { citus } : {}) }, ctx.dataDir, log);
  try {
    const m = await measureStore(ctx, pgRun.rt, o, { DATABASE_URL: pgRun.url });
    return report(m, citus ? "citus" : "postgres", { postgres_copy_s: pgRun.copySeconds });
  } finally {
    await pgRun.close();
  }
}

/**
 * --adapt: the loaded collection's model adapted to its own text (the endpoint's path, apply: true),
 * and for kind model its chunks embedded again, before anything is measured. Returns the answer.
 */
async function adaptLoad(ctx: BenchContext, kind: "queries" | "model"): Promise<Record<string, unknown>> {
  const { rt } = ctx;
  log(`adapting the collection's model (kind ${kind})...`);
  const a = await rt.adapter.adaptIn(ctx.tenant.id, ctx.collectionId, { apply: true, kind });
  log(`adaptation: ${a.pairs.total} pairs, held-out nDCG@10 ${a.held_out.adapted.ndcg_at_10.toFixed(4)} against ${a.held_out.base.ndcg_at_10.toFixed(4)}, ${a.apply.detail} (${(a.took_ms / 1000).toFixed(0)} s)`);
  const t0 = performance.now();
  for (;;) {
    await rt.backfill.idle();
    if ((await rt.store.content.countUnembedded(rt.activeProfile.index_name!, ctx.tenant.id)) === 0) break;
    rt.backfill.request();
  }
  if (kind === "model" && a.apply.applied) log(`chunks embedded again in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const { model_adaptation, apply, held_out, cross_validation, pairs, took_ms } = a;
  return { kind, pairs, held_out, cross_validation, apply, model_adaptation, took_ms, reembed_s: (performance.now() - t0) / 1000 };
}

async function benchDataset(o: BenchOptions, command: string): Promise<number> {
  const t0 = performance.now();
  const ctx = await loadBenchContext(o, log);
  const { rt } = ctx;
  const adaptation = o.adapt ? await adaptLoad(ctx, o.adapt) : null;
  const reports: BenchReport[] = [];
  const report = (m: Measured, store: string, extra: Partial<BenchReport> = {}): BenchReport => {
    const partial = {
      date: new Date().toISOString(),
      command,
      store,
      machine: machineInfo(),
      dataset: {
        name: ctx.title,
        path: o.dataset,
        split: ctx.split,
        queries: ctx.queryIds.length,
        documents: ctx.load.documents,
        chunks: ctx.load.chunks,
        reduced_corpus: o.maxDocuments !== null,
      },
      model: { profile: rt.activeProfile.name, state: rt.embedderStatus().state, name: loadedModel(rt) },
      load: ctx.load,
      ...m,
      published: findDataset(ctx.dataset)?.published ?? [],
      scale: null, // the scale bench runs on its own: `--scale N` (scale.ts)
      ...(adaptation ? { adaptation } : {}),
      ...extra,
    };
    return { ...partial, targets: checkTargets(partial), total_ms: performance.now() - t0 };
  };
  const emit = (r: BenchReport) => {
    const files = writeReport(r, o.out);
    process.stdout.write(renderMarkdown(r));
    log(`report (${r.store}): ${files.md} and ${files.json}`);
    reports.push(r);
  };
  try {
    emit(report(await measureStore(ctx, rt, o, {}), "sqlite"));
    // the SQLite report is already written when a PostgreSQL half fails
    if (o.stores.includes("postgres")) emit(await measureCopy(ctx, o, null, report));
    if (o.stores.includes("citus")) {
      const citus = await openBenchCitus({ url: o.citusUrl ?? null, workers: o.citusWorkers ?? null }, log);
      try {
        emit(await measureCopy(ctx, { ...o, pgUrl: citus.adminUrl }, citus, report));
      } finally {
        citus.stop();
      }
    }
    if (reports.length > 1) process.stdout.write(renderComparison(reports));
    return 0;
  } finally {
    await ctx.close();
  }
}

/** `--suite ID`: run a stored suite of the deployment (DATA_DIR) and print its metrics. */
async function benchSuite(o: BenchOptions): Promise<number> {
  const config = loadConfig();
  const rt = await openBenchRuntime(config.dataDir, log);
  try {
    const tenants = await rt.store.tenants.list();
    const candidates = o.tenant ? tenants.filter((t) => t.id === o.tenant || t.slug === o.tenant) : tenants;
    for (const t of candidates) {
      const p = operatorPrincipal(t);
      if (!(await rt.store.benchmarks.getSuite(t.id, o.suite!))) continue;
      const run = await rt.benchmarks.run(p, o.suite!);
      const m = run.metrics as Record<string, unknown>;
      const lat = (m.latency_ms ?? {}) as Record<string, number | null>;
      process.stdout.write(
        [
          `Suite ${o.suite} (tenant ${t.slug}), run ${run.id}: ${run.status}${run.error ? ` — ${run.error}` : ""}`,
          "",
          "| k | queries | nDCG@k | recall@k | precision@k | MRR | hit rate | p50 ms | p95 ms | cases missing documents | mode |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
          `| ${m.k} | ${m.query_count} | ${m.ndcg_at_k} | ${m.recall_at_k} | ${m.precision_at_k} | ${m.mrr} | ${m.hit_rate} | ${lat.p50} | ${lat.p95} | ${m.cases_missing_documents} | ${m.mode} |`,
          "",
        ].join("\n"),
      );
      return run.status === "completed" ? 0 : 1;
    }
    log(`No suite ${o.suite} in ${o.tenant ? `tenant ${o.tenant}` : "any tenant"} of ${config.dataDir}.`);
    return 2;
  } finally {
    await rt.close();
  }
}

/** `quarry bench` with options parsed by the CLI (src/cli.ts); `command` is recorded in the report. */
export async function benchCommand(o: BenchOptions, command: string): Promise<number> {
  return o.suite ? benchSuite(o) : benchDataset(o, command);
}
