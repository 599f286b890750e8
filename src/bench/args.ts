// Command-line options of `quarry bench`, parsed without a library (a handful of --flags).
import path from "node:path";
import type { FusionMethod, ScoreNormalization } from "../search/fusion.js";

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
  /** opt-in synthetic corpus of this many chunks for the scale latency test (0 = off) */
  scaleChunks: number;
  /** keep the loaded data here and reuse it next time (tuning loops); default: a temp dir, removed */
  dataDir: string | null;
  out: string;
  /** run an existing suite of DATA_DIR instead of a data set */
  suite: string | null;
  tenant: string | null;
}

export const BENCH_USAGE = `quarry bench [options]            (npm run bench -- [options])

Loads a BEIR data set into a fresh DATA_DIR with the active embedding model, then measures quality
(nDCG@10, recall@10, MRR@10 per retrieval mode), speed over HTTP (p50/p95, QPS) and ingest
throughput, and writes bench-results/<timestamp>.json and .md.

  --dataset DIR          BEIR directory (default: BEIR_DATA_DIR/scifact, i.e. ../shared/datasets/scifact)
  --split NAME           qrels split (default test)
  --limit-queries N      first N queries of the split
  --max-documents N      reduced corpus (relevant documents + first others); not comparable with published scores
  --fusion rrf|weighted  add a hybrid row with these settings (also used by the HTTP test)
  --lexical-weight X     weight of BM25 in fusion        --vector-weight Y   weight of vectors in fusion
  --rrf-k K              RRF rank constant               --normalization minmax|zscore
  --title-weight X --headings-weight Y --body-weight Z   BM25 column weights (lexical side)
  --depth N              candidates taken from each retriever
  --no-http              skip the HTTP speed test        --no-ingest   skip the ingest throughput test
  --clients N            concurrent clients for QPS (8)  --qps-seconds S   QPS test length (10)
  --latency-queries N    sequential queries per mode for p50/p95 (200)
  --scale N              opt-in: add N synthetic chunks and measure hybrid latency at that size (slow)
  --data-dir DIR         keep the loaded data in DIR and reuse it on the next run (fast tuning loops)
  --out DIR              report directory (default bench-results)
  --suite ID [--tenant ID]  run an existing suite of the deployment's DATA_DIR and print its metrics
`;

export class UsageError extends Error {}

export function parseBenchArgs(argv: string[], env: NodeJS.ProcessEnv, defaultDatasetsDir: string): BenchOptions {
  const o: BenchOptions = {
    dataset: path.join(defaultDatasetsDir, "scifact"),
    split: "test",
    limitQueries: null,
    maxDocuments: null,
    fusion: {},
    lexicalWeights: {},
    depth: null,
    http: true,
    ingest: true,
    clients: 8,
    qpsSeconds: 10,
    latencyQueries: 200,
    scaleChunks: 0,
    dataDir: null,
    out: "bench-results",
    suite: null,
    tenant: null,
  };
  void env;
  const args = [...argv];
  const value = (flag: string): string => {
    const v = args.shift();
    if (v === undefined || v.startsWith("--")) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const num = (flag: string, min: number, integer = false): number => {
    const raw = value(flag);
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) throw new UsageError(`${flag} must be ${integer ? "an integer" : "a number"} >= ${min}; got ${raw}`);
    return n;
  };
  while (args.length) {
    const a = args.shift()!;
    switch (a) {
      case "--dataset": o.dataset = path.resolve(value(a)); break;
      case "--split": o.split = value(a); break;
      case "--limit-queries": o.limitQueries = num(a, 1, true); break;
      case "--max-documents": o.maxDocuments = num(a, 1, true); break;
      case "--fusion": {
        const m = value(a);
        if (m !== "rrf" && m !== "weighted") throw new UsageError(`--fusion must be rrf or weighted; got ${m}`);
        o.fusion.method = m;
        break;
      }
      case "--lexical-weight": o.fusion.lexicalWeight = num(a, 0); break;
      case "--vector-weight": o.fusion.vectorWeight = num(a, 0); break;
      case "--rrf-k": o.fusion.rrfK = num(a, 0); break;
      case "--normalization": {
        const m = value(a);
        if (m !== "minmax" && m !== "zscore") throw new UsageError(`--normalization must be minmax or zscore; got ${m}`);
        o.fusion.normalization = m;
        break;
      }
      case "--title-weight": o.lexicalWeights.title = num(a, 0); break;
      case "--headings-weight": o.lexicalWeights.headings = num(a, 0); break;
      case "--body-weight": o.lexicalWeights.body = num(a, 0); break;
      case "--depth": o.depth = num(a, 1, true); break;
      case "--no-http": o.http = false; break;
      case "--no-ingest": o.ingest = false; break;
      case "--clients": o.clients = num(a, 1, true); break;
      case "--qps-seconds": o.qpsSeconds = num(a, 1); break;
      case "--latency-queries": o.latencyQueries = num(a, 1, true); break;
      case "--scale": o.scaleChunks = num(a, 0, true); break;
      case "--data-dir": o.dataDir = path.resolve(value(a)); break;
      case "--out": o.out = value(a); break;
      case "--suite": o.suite = value(a); break;
      case "--tenant": o.tenant = value(a); break;
      case "--help":
      case "-h":
        throw new UsageError("");
      default:
        throw new UsageError(`unknown option ${a}`);
    }
  }
  return o;
}

/** true when any fusion or lexical option was given: the report then has a "custom" hybrid row */
export function hasCustomSettings(o: BenchOptions): boolean {
  return Object.keys(o.fusion).length > 0 || Object.keys(o.lexicalWeights).length > 0 || o.depth !== null;
}
