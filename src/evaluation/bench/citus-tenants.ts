// Many tenants on Citus against one PostgreSQL (issue 31): T tenants of S chunks each loaded into a
// Citus cluster and into a single-node PostgreSQL in one run, then one tenant's hybrid search
// latency over HTTP on both, in alternating rounds (a loaded machine slows both alike), and every
// statement of a few tenants' searches explained on Citus: one task each, on the tenant's shard
// group. The corpus, vectors and loader are the scale bench's (scale/): real text from the
// machine, clustered synthetic vectors, documents written through the store's batched index writes.
//
//   npx tsx src/evaluation/bench/citus-tenants.ts --tenants 50 --tenant-chunks 20000
//
// Without --citus-url a coordinator and two workers start on loopback (scripts/citus/cluster.mjs).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import type { FastifyInstance } from "fastify";
import { latencySummary, type LatencySummary } from "../ranking-metrics.js";
import { DEBIAN_ROOTS, readSourceTexts, type TextRoots } from "./scale/text-sources.js";
import { parseSources } from "./scale/options.js";
import { buildCorpus, type Corpus } from "./scale/corpus.js";
import { dfSample, type DfSample } from "./scale/queries.js";
import { loadLayout, type BenchQuery, type Loaded } from "./scale/loader.js";
import { syntheticVectors } from "./scale/vector-source.js";
import { benchRuntime, createBenchTenant, lookupEmbedder, searchOverHttp, startServer } from "./scale/adapter.js";
import { copyTenants, deferGraph } from "./tenant-copies.js";
import { hash32, prng } from "./scale/rng.js";
import { randomUnit } from "./scale/vectors.js";
import { openBenchRuntime } from "./load.js";
import { admin, createBenchDatabase } from "./postgres.js";
import { openBenchCitus, type BenchCitus } from "./citus.js";
import { explainable, groupsOf, recordStatements, tenantGroup } from "./citus-explain.js";
import { machineInfo, runMain } from "./report.js";
import type { Runtime } from "../../runtime.js";

const log = (m: string) => process.stderr.write(`${m}\n`);

interface Options {
  tenants: number;
  tenantChunks: number;
  /** queries of the measured tenant */
  queries: number;
  rounds: number;
  seed: number;
  /** tenants written through the store; the rest are SQL copies of them (tenant-copies.ts) */
  written: number;
  /** drop the HNSW graph before the load and build it once after */
  graphAfterLoad: boolean;
  pgUrl: string;
  citusUrl: string | null;
  citusWorkers: string | null;
  roots: TextRoots;
}

const USAGE = `npx tsx src/evaluation/bench/citus-tenants.ts [--tenants 50] [--tenant-chunks 20000] [--queries 100]
  [--rounds 4] [--seed 42] [--written-tenants K] [--graph-after-load] [--sources package,man,doc] [--pg-url URL] [--citus-url URL --citus-workers host:port,...]`;

function parseOptions(argv: string[]): Options {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      tenants: { type: "string" }, "tenant-chunks": { type: "string" }, queries: { type: "string" }, rounds: { type: "string" }, seed: { type: "string" },
      "pg-url": { type: "string" }, "citus-url": { type: "string" }, "citus-workers": { type: "string" }, sources: { type: "string" }, help: { type: "boolean" },
      "written-tenants": { type: "string" }, "graph-after-load": { type: "boolean" },
    },
  });
  if (v.help) throw new Error(USAGE);
  const int = (name: keyof typeof v, fallback: number, min: number) => {
    const n = v[name] === undefined ? fallback : Number(v[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}\n${USAGE}`);
    return n;
  };
  const tenants = int("tenants", 50, 2);
  const written = int("written-tenants", tenants, 1);
  if (written > tenants) throw new Error(`--written-tenants must be at most --tenants\n${USAGE}`);
  return {
    tenants,
    written,
    graphAfterLoad: v["graph-after-load"] === true,
    tenantChunks: int("tenant-chunks", 20_000, 10),
    queries: int("queries", 100, 10),
    rounds: int("rounds", 4, 1),
    seed: int("seed", 42, 0),
    pgUrl: v["pg-url"] ?? process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    citusUrl: v["citus-url"] ?? null,
    citusWorkers: v["citus-workers"] ?? null,
    roots: v.sources ? parseSources(v.sources, DEBIAN_ROOTS) : DEBIAN_ROOTS,
  };
}

/** One store: its database, runtime (queries answered with the bench's vectors) and HTTP server. */
interface StoreRun {
  name: "postgres" | "citus";
  url: string;
  rt: Runtime;
  app: FastifyInstance;
  http: string;
  loaded: Loaded;
  loadSeconds: number;
  close(): Promise<void>;
}

async function loadStore(name: StoreRun["name"], o: Options, corpus: Corpus, df: DfSample, citus: BenchCitus | null): Promise<StoreRun> {
  const db = await createBenchDatabase({ pgUrl: citus ? citus.adminUrl : o.pgUrl, keep: false, ...(citus ? { citus } : {}) }, log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `quarry-citus-bench-${name}-`));
  const removeAll = async () => {
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // the search log flushes when the bench closes, not during a recorded request
  const rt = await openBenchRuntime(dir, log, { DATABASE_URL: db.url, ANALYTICS_FLUSH_MS: "60000", RATE_LIMIT_PER_MINUTE: "0" }).catch(async (err) => {
    await removeAll();
    throw err;
  });
  try {
    return await loadInto(name, o, corpus, df, rt, db.url, removeAll);
  } catch (err) {
    await rt.close();
    await removeAll();
    throw err;
  }
}

async function loadInto(name: StoreRun["name"], o: Options, corpus: Corpus, df: DfSample, rt: Runtime, dbUrl: string, removeAll: () => Promise<void>): Promise<StoreRun> {
  const label = `${name}: ${o.tenants} tenants x ${o.tenantChunks}`;
  const layout = { label: `${name}: ${o.written} tenants x ${o.tenantChunks} through the store`, tenants: o.written, chunksPerTenant: o.tenantChunks };
  const indexName = rt.activeProfile.index_name!;
  const vectors = syntheticVectors(rt.activeProfile.dimension, 1000, o.seed);
  const graph = o.graphAfterLoad ? await deferGraph(dbUrl, indexName) : null;
  const t0 = performance.now();
  const loaded = await loadLayout(rt, corpus, layout, vectors, df, { queries: o.written * o.queries, seed: o.seed, filters: false });
  await rt.backfill.idle();
  if (o.written < o.tenants) {
    for (let t = o.written; t < o.tenants; t++) loaded.tenants.push(await createBenchTenant(rt, `Scale bench ${t + 1}`));
    const copies = Date.now();
    await copyTenants(dbUrl, loaded, o.written, indexName, vectors, (done, total) => {
      if (done === total || done % 5 === 0) log(`  ${name}: ${done} of ${total} tenant copies (${((Date.now() - copies) / 1000).toFixed(0)} s)`);
    });
  }
  if (graph) log(`${name}: HNSW graph built in ${(await graph.build()).toFixed(0)} s`);
  // a settled database, as autovacuum leaves one after a bulk load
  await admin(dbUrl, (c) => c.query("VACUUM ANALYZE"));
  loaded.buildMs = performance.now() - t0;
  log(`${label}: ${loaded.chunks} chunks in ${(loaded.buildMs / 1000).toFixed(0)} s (store writes ${(loaded.writeMs / 1000).toFixed(0)} s)`);
  const dim = rt.activeProfile.dimension;
  const embedder = lookupEmbedder(rt.activeProfile, new Map(loaded.queries.map((q) => [q.text, q.vector])), (text) => randomUnit(dim, prng(hash32(text))));
  const { app, url } = await startServer(benchRuntime(rt, embedder));
  return {
    name, url: dbUrl, rt, app, http: url, loaded, loadSeconds: loaded.buildMs / 1000,
    async close() {
      await app.close();
      await rt.close();
      await removeAll();
    },
  };
}

/** ms of each of `queries` searched one after another against tenant `t` of `run` */
async function pass(run: StoreRun, t: number, queries: BenchQuery[]): Promise<number[]> {
  const tenant = run.loaded.tenants[t];
  const out: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const status = await searchOverHttp(run.http, tenant, q.text, "hybrid");
    out.push(performance.now() - t0);
    if (status !== 200) throw new Error(`${run.name}: POST /search answered ${status}`);
  }
  return out;
}

interface Latencies {
  /** every sample of the store */
  all: Map<string, LatencySummary>;
  /** Citus p95 / PostgreSQL p95 of each round: a load spike on the machine moves one round, not all */
  roundRatios: number[];
}

/** A warm-up pass each, then `rounds` passes each, the order alternating. */
async function measureRounds(runs: StoreRun[], t: number, queries: BenchQuery[], rounds: number): Promise<Latencies> {
  const samples = new Map<string, number[]>(runs.map((r) => [r.name, []]));
  const roundRatios: number[] = [];
  for (const r of runs) await pass(r, t, queries);
  for (let i = 0; i < rounds; i++) {
    const p95 = new Map<string, number>();
    for (const r of i % 2 === 0 ? runs : [...runs].reverse()) {
      const ms = await pass(r, t, queries);
      samples.get(r.name)!.push(...ms);
      p95.set(r.name, latencySummary(ms).p95!);
    }
    roundRatios.push(p95.get("citus")! / p95.get("postgres")!);
    log(`round ${i + 1}/${rounds}: ${runs.map((r) => `${r.name} p95 ${p95.get(r.name)!.toFixed(1)} ms`).join(", ")} (${roundRatios.at(-1)!.toFixed(2)}x)`);
  }
  return { all: new Map([...samples].map(([k, v]) => [k, latencySummary(v)])), roundRatios };
}

interface RoutingResult {
  tenant: number;
  statements: number;
  /** statements on more than one task or on another shard group than the tenant's */
  strays: string[];
}

/** Every statement of one hybrid search per tenant in `tenants`, explained on the coordinator. */
async function checkRouting(run: StoreRun, tenants: number[]): Promise<RoutingResult[]> {
  const admin = new pg.Client({ connectionString: run.url });
  await admin.connect();
  try {
    const out: RoutingResult[] = [];
    for (const t of tenants) {
      const tenant = run.loaded.tenants[t];
      const q = run.loaded.queries.find((x) => x.tenant === t) ?? run.loaded.queries[0];
      const { out: status, statements } = await recordStatements(() => searchOverHttp(run.http, tenant, q.text, "hybrid"));
      if (status !== 200) throw new Error(`routing check: POST /search answered ${status}`);
      const group = await tenantGroup(admin, tenant.id);
      const strays: string[] = [];
      const explained = statements.filter(explainable);
      for (const st of explained) {
        const g = await groupsOf(admin, st);
        if (g.maxTasks > 1 || [...g.groups].some((x) => x !== group)) strays.push(st.text.replace(/\s+/g, " ").slice(0, 160));
      }
      out.push({ tenant: t, statements: explained.length, strays });
    }
    return out;
  } finally {
    await admin.end();
  }
}

function readCorpus(o: Options): { corpus: Corpus; df: DfSample } {
  const t0 = performance.now();
  const corpus = buildCorpus(readSourceTexts(o.roots), o.seed);
  log(`corpus: ${corpus.realChunks} real chunks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return { corpus, df: dfSample(corpus.real.flatMap((d) => d.chunks).slice(0, 20_000)) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function render(o: Options, argv: string[], runs: StoreRun[], lat: Latencies, routing: RoutingResult[], queries: number): string {
  const f = (x: number | null) => (x === null ? "—" : x.toFixed(1));
  const pgP95 = lat.all.get("postgres")!.p95!;
  const ciP95 = lat.all.get("citus")!.p95!;
  const ratio = median(lat.roundRatios);
  const stray = routing.reduce((n, r) => n + r.strays.length, 0);
  const m = machineInfo();
  return [
    `# Citus: ${o.tenants} tenants x ${o.tenantChunks.toLocaleString("en")} chunks, ${new Date().toISOString()}`,
    "",
    `Command: \`npx tsx src/evaluation/bench/citus-tenants.ts ${argv.join(" ")}\``,
    `Machine: ${m.cpus} cores, load average at the end ${m.load_average.join(" / ")}. Hybrid search of tenant 1 over HTTP, ${queries} queries x ${o.rounds} rounds per store, alternating.`,
    `Load: ${o.written === o.tenants ? "every tenant written through the store" : `${o.written} tenant(s) written through the store, the other ${o.tenants - o.written} copies of them made in SQL with vectors of their own`}; HNSW graph ${o.graphAfterLoad ? "built once after the load" : "grown during the load"}.`,
    "",
    "| store | chunks loaded | load s | hybrid p50 ms | hybrid p95 ms (all rounds) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...runs.map((r) => `| ${r.name} | ${r.loaded.chunks} | ${r.loadSeconds.toFixed(0)} | ${f(lat.all.get(r.name)!.p50)} | ${f(lat.all.get(r.name)!.p95)} |`),
    "",
    `Citus p95 / PostgreSQL p95 per round: ${lat.roundRatios.map((x) => x.toFixed(2)).join(", ")}; all rounds together ${(ciP95 / pgP95).toFixed(2)}x.`,
    "",
    `| target | measured | met |`,
    `| --- | --- | --- |`,
    `| Citus hybrid p95 <= 1.5x single-node PostgreSQL (median of the rounds' ratios) | ${ratio.toFixed(2)}x | ${ratio <= 1.5 ? "yes" : "**no**"} |`,
    `| every statement of a search on one shard group (tenants ${routing.map((r) => r.tenant + 1).join(", ")}) | ${routing.map((r) => r.statements).join(" + ")} statements, ${stray} elsewhere | ${stray === 0 ? "yes" : "**no**"} |`,
    ...routing.flatMap((r) => r.strays.map((s) => `- tenant ${r.tenant + 1}: \`${s}\``)),
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const o = parseOptions(argv);
  const { corpus, df } = readCorpus(o);
  const citus = await openBenchCitus({ url: o.citusUrl, workers: o.citusWorkers }, log);
  const runs: StoreRun[] = [];
  try {
    runs.push(await loadStore("postgres", o, corpus, df, null));
    runs.push(await loadStore("citus", o, corpus, df, citus));
    const queries = runs[0].loaded.queries.filter((q) => q.tenant === 0).slice(0, o.queries);
    const lat = await measureRounds(runs, 0, queries, o.rounds);
    const routing = await checkRouting(runs[1], [0, Math.floor(o.tenants / 2), o.tenants - 1]);
    process.stdout.write(render(o, argv, runs, lat, routing, queries.length));
    return routing.every((r) => r.strays.length === 0) ? 0 : 1;
  } finally {
    for (const r of runs) await r.close();
    citus.stop();
  }
}

runMain(main);
