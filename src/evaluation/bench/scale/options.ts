// Options of `quarry bench --scale N [...]` (npm run bench -- --scale N ...): the scale bench has
// its own flags, parsed here so the dataset bench's parser stays as it is.
import { parseArgs } from "node:util";
import { DEBIAN_ROOTS, type TextRoots } from "./text-sources.js";

export interface ScaleOptions {
  chunks: number;
  /** "one": one tenant of N; "tenants": N / tenantChunks tenants */
  layouts: ("one" | "tenants")[];
  tenantChunks: number;
  queries: number;
  recallQueries: number;
  vectors: "synthetic" | "model";
  clusters: number;
  seed: number;
  http: boolean;
  /** the filter and facet bench (filters.ts): metadata on the documents, filtered recall and latency, facets */
  filters: boolean;
  out: string;
  roots: TextRoots;
}

export const SCALE_USAGE = `quarry bench --scale N [options]      (npm run bench -- --scale N [options])

Builds a corpus of N chunks from real text on this machine (Debian package descriptions, man pages,
/usr/share/doc; sentences of it recombined past its end), loads it through the store's bulk path
with clustered synthetic 512-d vectors, and measures build time, lexical/vector/hybrid latency in
process and over HTTP, vector recall@10 against exact search, memory and disk per chunk. Writes
bench-results/scale-<timestamp>.json and .md.

  --layouts one,tenants  one tenant of N chunks and/or N/T tenants of T chunks (default both)
  --tenant-chunks T      chunks per tenant in the "tenants" layout (default 20000)
  --queries Q            queries per mode, half keyword, half question-like (default 200)
  --recall-queries R     queries whose recall@10 is measured (default 100)
  --vectors synthetic|model   vectors of the corpus (default synthetic; model = the active model, slow: small N only)
  --clusters C           topics of the synthetic vectors (default 1000)
  --seed S               corpus, vector and query seed (default 42)
  --no-http              in-process measurements only
  --filters              also the filter and facet bench: documents get metadata (product, priority,
                         file_type); filters selecting 1 %, 10 %, 50 % are measured against the exact
                         filtered rankings (lexical, vector, hybrid) and unfiltered latency; facets p95
  --out DIR              report directory (default bench-results)
  --sources LIST         which texts to read: package,man,doc (default all three)
  --dpkg-status FILE --man-dir DIR --doc-dir DIR   other locations of the texts
`;

export class ScaleUsageError extends Error {}

export function parseSources(list: string, roots: TextRoots): TextRoots {
  const want = new Set(list.split(",").map((s) => s.trim()));
  for (const s of want) if (!["package", "man", "doc"].includes(s)) throw new ScaleUsageError(`--sources takes package, man and doc; got ${s}`);
  return {
    dpkgStatus: want.has("package") ? roots.dpkgStatus : null,
    aptDumpavail: want.has("package") && roots.aptDumpavail,
    manDir: want.has("man") ? roots.manDir : null,
    docDir: want.has("doc") ? roots.docDir : null,
  };
}

const FLAGS = {
  scale: { type: "string" },
  layouts: { type: "string" },
  "tenant-chunks": { type: "string" },
  queries: { type: "string" },
  "recall-queries": { type: "string" },
  vectors: { type: "string" },
  clusters: { type: "string" },
  seed: { type: "string" },
  "no-http": { type: "boolean" },
  filters: { type: "boolean" },
  out: { type: "string" },
  sources: { type: "string" },
  "dpkg-status": { type: "string" },
  "man-dir": { type: "string" },
  "doc-dir": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Flags = ReturnType<typeof parseArgs<{ args: string[]; options: typeof FLAGS }>>["values"];

/** node:util parseArgs (strict: unknown options and missing values are refused), as usage errors */
function readFlags(argv: string[]): Flags {
  try {
    return parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ScaleUsageError(`${(err as Error).message} (scale bench)`);
  }
}

function intFlag(v: Flags, name: "scale" | "tenant-chunks" | "queries" | "recall-queries" | "clusters" | "seed", min: number, fallback: number): number {
  const raw = v[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ScaleUsageError(`--${name} must be an integer >= ${min}; got ${raw}`);
  return n;
}

function layoutsFlag(raw: string | undefined): ScaleOptions["layouts"] {
  if (raw === undefined) return ["one", "tenants"];
  const l = raw.split(",");
  if (!l.every((x) => x === "one" || x === "tenants")) throw new ScaleUsageError(`--layouts takes one and/or tenants; got ${l.join(",")}`);
  return l as ScaleOptions["layouts"];
}

function vectorsFlag(raw: string | undefined): ScaleOptions["vectors"] {
  if (raw === undefined || raw === "synthetic" || raw === "model") return raw ?? "synthetic";
  throw new ScaleUsageError(`--vectors must be synthetic or model; got ${raw}`);
}

export function parseScaleArgs(argv: string[]): ScaleOptions {
  const v = readFlags(argv);
  if (v.help) throw new ScaleUsageError("");
  const roots: TextRoots = { ...DEBIAN_ROOTS };
  if (v["dpkg-status"] !== undefined) roots.dpkgStatus = v["dpkg-status"];
  if (v["man-dir"] !== undefined) roots.manDir = v["man-dir"];
  if (v["doc-dir"] !== undefined) roots.docDir = v["doc-dir"];
  const o: ScaleOptions = {
    chunks: intFlag(v, "scale", 100, 0),
    layouts: layoutsFlag(v.layouts),
    tenantChunks: intFlag(v, "tenant-chunks", 10, 20_000),
    queries: intFlag(v, "queries", 10, 200),
    recallQueries: intFlag(v, "recall-queries", 0, 100),
    vectors: vectorsFlag(v.vectors),
    clusters: intFlag(v, "clusters", 1, 1000),
    seed: intFlag(v, "seed", 0, 42),
    http: !v["no-http"],
    filters: v.filters === true,
    out: v.out ?? "bench-results",
    roots: v.sources ? parseSources(v.sources, roots) : roots,
  };
  if (o.chunks === 0) throw new ScaleUsageError("--scale N is required");
  if (o.chunks < o.tenantChunks * 2) o.layouts = o.layouts.filter((l) => l === "one");
  if (o.layouts.length === 0) o.layouts = ["one"];
  return o;
}
