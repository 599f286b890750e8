// Command-line options of `quarry bench`, declared on a commander command (src/cli.ts) and turned
// into the BenchOptions the bench runs with.
import path from "node:path";
import { Command, Option } from "commander";
import { CliError } from "../../terminal/errors.js";
import type { FusionMethod, ScoreNormalization } from "../../search/fusion.js";
import { intArg, numArg } from "../../terminal/parsers.js";

export interface BenchOptions {
  /** BEIR directory (corpus.jsonl, queries.jsonl, qrels/) */
  dataset: string;
  split: string;
  /** first N queries of the split (all when null) */
  limitQueries: number | null;
  /** reduced corpus: relevant documents of the chosen queries plus the first others, up to N */
  maxDocuments: number | null;
  /** extra hybrid row with these fusion settings (and the settings of the HTTP speed test) */
  fusion: { method?: FusionMethod; lexicalWeight?: number; vectorWeight?: number; rrfK?: number; normalization?: ScoreNormalization };
  lexicalWeights: { title?: number; headings?: number; body?: number };
  depth: number | null;
  http: boolean;
  ingest: boolean;
  clients: number;
  qpsSeconds: number;
  latencyQueries: number;
  /** keep the loaded data here and reuse it next time (tuning loops); default: a temp dir, removed */
  dataDir: string | null;
  out: string;
  /** run an existing suite of DATA_DIR instead of a data set */
  suite: string | null;
  tenant: string | null;
  /** stores measured in this run, SQLite first (the data set is loaded there, then copied) */
  stores: BenchStore[];
  /** PostgreSQL server where the postgres run creates its own database */
  pgUrl: string;
  /** keep the postgres run's database instead of dropping it */
  keep: boolean;
  /** the citus store's coordinator and workers; null: a throwaway cluster on loopback (citus.ts) */
  citusUrl?: string | null;
  citusWorkers?: string | null;
  /** adapt the loaded collection's model first (POST /collections/{id}/adapt with apply: true, of this kind) */
  adapt?: "queries" | "model" | null;
}

export type BenchStore = "sqlite" | "postgres" | "citus";
export const BENCH_STORES: BenchStore[] = ["sqlite", "postgres", "citus"];

export const BENCH_DESCRIPTION =
  "Load a BEIR data set into a fresh DATA_DIR with the active embedding model, measure quality (nDCG@10, recall@10, MRR@10 per mode), " +
  "speed over HTTP (p50/p95, QPS) and ingest throughput, and write bench-results/<timestamp>.json and .md (npm run bench -- [options])";

/** Declares the bench options on `cmd`. */
export function addBenchOptions(cmd: Command): Command {
  return cmd
    .option("--dataset <dir>", "BEIR directory (default: BEIR_DATA_DIR/scifact)")
    .option("--split <name>", "qrels split", "test")
    .option("--limit-queries <n>", "first N queries of the split", intArg(1))
    .option("--max-documents <n>", "reduced corpus (relevant documents + first others); not comparable with published scores", intArg(1))
    .addOption(new Option("--fusion <method>", "add a hybrid row with these settings (also used by the HTTP test)").choices(["rrf", "weighted"]))
    .option("--lexical-weight <x>", "weight of BM25 in fusion", numArg(0))
    .option("--vector-weight <y>", "weight of vectors in fusion", numArg(0))
    .option("--rrf-k <k>", "RRF rank constant", numArg(0))
    .addOption(new Option("--normalization <method>", "score normalization of weighted fusion").choices(["minmax", "zscore"]))
    .option("--title-weight <x>", "BM25 weight of the title column", numArg(0))
    .option("--headings-weight <y>", "BM25 weight of the headings column", numArg(0))
    .option("--body-weight <z>", "BM25 weight of the body column", numArg(0))
    .option("--depth <n>", "candidates taken from each retriever", intArg(1))
    .option("--no-http", "skip the HTTP speed test")
    .option("--no-ingest", "skip the ingest throughput test")
    .option("--clients <n>", "concurrent clients for QPS", intArg(1), 8)
    .option("--qps-seconds <s>", "QPS test length", numArg(1), 10)
    .option("--latency-queries <n>", "sequential queries per mode for p50/p95", intArg(1), 200)
    .option("--scale <n>", "run the scale bench on N chunks of real text instead (its own options: quarry bench --scale 1 --help)", intArg(0), 0)
    .option("--data-dir <dir>", "keep the loaded data in DIR and reuse it on the next run (fast tuning loops)")
    .option("--out <dir>", "report directory", "bench-results")
    .option("--suite <id>", "run an existing suite of the deployment's DATA_DIR and print its metrics")
    .option("--tenant <id>", "tenant of --suite (id or slug)")
    .option("--stores <list>", "stores measured in one run, comma-separated: sqlite (always: the data set loads there), postgres (a copy made by migrate-data), citus (the same copy on a Citus cluster)", "sqlite")
    .addOption(new Option("--store <name>", "measure this store next to the embedded one (postgres = --stores sqlite,postgres)").choices(BENCH_STORES))
    .option("--pg-url <url>", "PostgreSQL server (with pgvector) where the postgres run creates and drops its own database", process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")
    .option("--keep", "keep the postgres run's database (its URL is printed)")
    .option("--citus-url <url>", "the citus store's coordinator (its workers registered); default: a throwaway coordinator and 2 workers on loopback (scripts/citus)", process.env.BENCH_CITUS_URL)
    .option("--citus-workers <list>", "host:port,... of the --citus-url cluster's workers, where the bench database is made too", process.env.BENCH_CITUS_WORKERS)
    .addOption(
      new Option("--adapt <kind>", "adapt the loaded collection's model to its own text before measuring (quarry-static only; a kept --data-dir stays adapted)").choices(["queries", "model"]),
    );
}

interface RawBenchOptions {
  dataset?: string;
  split: string;
  limitQueries?: number;
  maxDocuments?: number;
  fusion?: FusionMethod;
  lexicalWeight?: number;
  vectorWeight?: number;
  rrfK?: number;
  normalization?: ScoreNormalization;
  titleWeight?: number;
  headingsWeight?: number;
  bodyWeight?: number;
  depth?: number;
  http: boolean;
  ingest: boolean;
  clients: number;
  qpsSeconds: number;
  latencyQueries: number;
  scale: number;
  dataDir?: string;
  out: string;
  suite?: string;
  tenant?: string;
  stores: string;
  store?: BenchStore;
  pgUrl: string;
  keep?: boolean;
  citusUrl?: string;
  citusWorkers?: string;
  adapt?: "queries" | "model";
}

/** --stores a,b (or --store postgres): known names, sqlite always first since the data set loads there. */
function storesFrom(raw: RawBenchOptions): BenchStore[] {
  const names = raw.store ? ["sqlite", raw.store] : raw.stores.split(",").map((s) => s.trim()).filter(Boolean);
  for (const n of names) {
    if (!(BENCH_STORES as string[]).includes(n)) throw new CliError(`--stores: unknown store "${n}"`, `Use ${BENCH_STORES.join(", ")}, comma-separated`, 2);
  }
  return BENCH_STORES.filter((s) => s === "sqlite" || names.includes(s));
}

/** Drops the keys whose value is undefined, so "given" means present. */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function benchOptionsFrom(raw: RawBenchOptions, defaultDatasetsDir: string): BenchOptions {
  return {
    dataset: path.resolve(raw.dataset ?? path.join(defaultDatasetsDir, "scifact")),
    split: raw.split,
    limitQueries: raw.limitQueries ?? null,
    maxDocuments: raw.maxDocuments ?? null,
    fusion: defined({ method: raw.fusion, lexicalWeight: raw.lexicalWeight, vectorWeight: raw.vectorWeight, rrfK: raw.rrfK, normalization: raw.normalization }),
    lexicalWeights: defined({ title: raw.titleWeight, headings: raw.headingsWeight, body: raw.bodyWeight }),
    depth: raw.depth ?? null,
    http: raw.http,
    ingest: raw.ingest,
    clients: raw.clients,
    qpsSeconds: raw.qpsSeconds,
    latencyQueries: raw.latencyQueries,
    dataDir: raw.dataDir ? path.resolve(raw.dataDir) : null,
    out: raw.out,
    suite: raw.suite ?? null,
    tenant: raw.tenant ?? null,
    stores: storesFrom(raw),
    pgUrl: raw.pgUrl,
    keep: raw.keep ?? false,
    citusUrl: raw.citusUrl ?? null,
    citusWorkers: raw.citusWorkers ?? null,
    adapt: raw.adapt ?? null,
  };
}

/** true when any fusion or lexical option was given: the report then has a "custom" hybrid row */
export function hasCustomSettings(o: BenchOptions): boolean {
  return Object.keys(o.fusion).length > 0 || Object.keys(o.lexicalWeights).length > 0 || o.depth !== null;
}
