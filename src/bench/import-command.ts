// `quarry import beir <dir> --tenant <id|slug> ...`: loads a BEIR directory into a collection of the
// deployment (DATA_DIR / the environment) through the same import path as
// POST /industry-benchmarks/{name}/import, waits until every document is indexed, and prints the
// collection, data source and suite ids as JSON.
import path from "node:path";
import { loadConfig } from "../config.js";
import { findDataset } from "../search/beir-catalog.js";
import { openBenchRuntime, operatorPrincipal } from "./load.js";

export const IMPORT_USAGE = `quarry import beir <dir> --tenant <tenant id or slug> [options]

Loads a BEIR-format directory (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) into a collection of
the deployment in DATA_DIR and creates a benchmark suite from the split's queries.

  --collection-name NAME   name of the new collection (default "<data set> (BEIR)")
  --collection ID          load into this existing collection instead (a data source is added)
  --split NAME             qrels split (default test)
  --max-queries N          suite cases: the split's first N queries (at most 500)
  --max-documents N        reduced corpus: relevant documents of those queries plus the first others
  --top-k K                suite top_k (default 10)
  --no-suite               load the documents only
  --lexical-only           index without vectors (the backfill embeds them once the service runs)
`;

interface ImportArgs {
  dir: string;
  tenant: string;
  collectionName: string | null;
  collectionId: string | null;
  split: string;
  maxQueries: number | null;
  maxDocuments: number | null;
  topK: number;
  suite: boolean;
  embed: boolean;
}

function parse(argv: string[]): ImportArgs {
  const [kind, dir, ...rest] = argv;
  if (kind !== "beir" || !dir || dir.startsWith("--")) throw new Error("expected: quarry import beir <dir> --tenant <id|slug>");
  const a: ImportArgs = { dir: path.resolve(dir), tenant: "", collectionName: null, collectionId: null, split: "test", maxQueries: null, maxDocuments: null, topK: 10, suite: true, embed: true };
  const value = (flag: string) => {
    const v = rest.shift();
    if (v === undefined || v.startsWith("--")) throw new Error(`${flag} needs a value`);
    return v;
  };
  const int = (flag: string, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const v = Number(value(flag));
    if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${flag} must be an integer from ${min} to ${max}`);
    return v;
  };
  while (rest.length) {
    const f = rest.shift()!;
    if (f === "--tenant") a.tenant = value(f);
    else if (f === "--collection-name") a.collectionName = value(f);
    else if (f === "--collection") a.collectionId = value(f);
    else if (f === "--split") a.split = value(f);
    else if (f === "--max-queries") a.maxQueries = int(f, 1, 500);
    else if (f === "--max-documents") a.maxDocuments = int(f, 1);
    else if (f === "--top-k") a.topK = int(f, 1, 50);
    else if (f === "--no-suite") a.suite = false;
    else if (f === "--lexical-only") a.embed = false;
    else throw new Error(`unknown option ${f}`);
  }
  if (!a.tenant) throw new Error("--tenant is required (a tenant id or slug; GET /tenants lists them)");
  return a;
}

export async function importCommand(argv: string[]): Promise<number> {
  let a: ImportArgs;
  try {
    a = parse(argv);
  } catch (err) {
    process.stderr.write(`quarry import: ${(err as Error).message}\n\n${IMPORT_USAGE}`);
    return 2;
  }
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const config = loadConfig();
  const rt = await openBenchRuntime(config.dataDir, log);
  try {
    const tenant = (await rt.store.tenants.list()).find((t) => t.id === a.tenant || t.slug === a.tenant);
    if (!tenant) {
      log(`No tenant '${a.tenant}' in ${config.dataDir}.`);
      return 2;
    }
    const dataset = path.basename(a.dir);
    const t0 = performance.now();
    let last = 0;
    const job = await rt.industryBenchmarks.importer.start(operatorPrincipal(tenant), {
      dir: a.dir,
      dataset,
      title: findDataset(dataset)?.title ?? dataset,
      split: a.split,
      collectionId: a.collectionId,
      collectionName: a.collectionName,
      maxQueries: a.maxQueries,
      maxDocuments: a.maxDocuments,
      topK: a.topK,
      createSuite: a.suite,
      embed: a.embed,
      onProgress: ({ indexed, total, chunks }) => {
        if (performance.now() - last > 10_000 || indexed === total) {
          last = performance.now();
          log(`indexed ${indexed}/${total} documents (${chunks} chunks), ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        }
      },
    });
    const done = await job.done;
    process.stdout.write(`${JSON.stringify({ ...job.started, status: "indexed", ...done, seconds: Math.round((performance.now() - t0) / 100) / 10 }, null, 2)}\n`);
    return 0;
  } catch (err) {
    log(`quarry import: ${(err as Error).message}`);
    return 1;
  } finally {
    await rt.close();
  }
}
