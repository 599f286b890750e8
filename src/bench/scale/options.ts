// Options of `quarry bench --scale N [...]` (npm run bench -- --scale N ...): the scale bench has
// its own flags, parsed here so the dataset bench's parser stays as it is.
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
  --out DIR              report directory (default bench-results)
  --sources LIST         which texts to read: package,man,doc (default all three)
  --dpkg-status FILE --man-dir DIR --doc-dir DIR   other locations of the texts
`;

export class ScaleUsageError extends Error {}

function parseSources(list: string, roots: TextRoots): TextRoots {
  const want = new Set(list.split(",").map((s) => s.trim()));
  for (const s of want) if (!["package", "man", "doc"].includes(s)) throw new ScaleUsageError(`--sources takes package, man and doc; got ${s}`);
  return {
    dpkgStatus: want.has("package") ? roots.dpkgStatus : null,
    aptDumpavail: want.has("package") && roots.aptDumpavail,
    manDir: want.has("man") ? roots.manDir : null,
    docDir: want.has("doc") ? roots.docDir : null,
  };
}

export function parseScaleArgs(argv: string[]): ScaleOptions {
  const o: ScaleOptions = { chunks: 0, layouts: ["one", "tenants"], tenantChunks: 20_000, queries: 200, recallQueries: 100, vectors: "synthetic", clusters: 1000, seed: 42, http: true, out: "bench-results", roots: { ...DEBIAN_ROOTS } };
  let sources: string | null = null;
  const args = [...argv];
  const value = (flag: string) => {
    const v = args.shift();
    if (v === undefined || v.startsWith("--")) throw new ScaleUsageError(`${flag} needs a value`);
    return v;
  };
  const int = (flag: string, min: number) => {
    const raw = value(flag);
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new ScaleUsageError(`${flag} must be an integer >= ${min}; got ${raw}`);
    return n;
  };
  while (args.length) {
    const a = args.shift()!;
    switch (a) {
      case "--scale": o.chunks = int(a, 100); break;
      case "--layouts": {
        const l = value(a).split(",");
        if (!l.every((x) => x === "one" || x === "tenants")) throw new ScaleUsageError(`--layouts takes one and/or tenants; got ${l.join(",")}`);
        o.layouts = l as ScaleOptions["layouts"];
        break;
      }
      case "--tenant-chunks": o.tenantChunks = int(a, 10); break;
      case "--queries": o.queries = int(a, 10); break;
      case "--recall-queries": o.recallQueries = int(a, 0); break;
      case "--vectors": {
        const v = value(a);
        if (v !== "synthetic" && v !== "model") throw new ScaleUsageError(`--vectors must be synthetic or model; got ${v}`);
        o.vectors = v;
        break;
      }
      case "--clusters": o.clusters = int(a, 1); break;
      case "--seed": o.seed = int(a, 0); break;
      case "--no-http": o.http = false; break;
      case "--out": o.out = value(a); break;
      case "--sources": sources = value(a); break;
      case "--dpkg-status": o.roots.dpkgStatus = value(a); break;
      case "--man-dir": o.roots.manDir = value(a); break;
      case "--doc-dir": o.roots.docDir = value(a); break;
      case "--help": case "-h": throw new ScaleUsageError("");
      default: throw new ScaleUsageError(`unknown option ${a} for the scale bench`);
    }
  }
  if (o.chunks === 0) throw new ScaleUsageError("--scale N is required");
  if (sources) o.roots = parseSources(sources, o.roots);
  if (o.chunks < o.tenantChunks * 2) o.layouts = o.layouts.filter((l) => l === "one");
  if (o.layouts.length === 0) o.layouts = ["one"];
  return o;
}
