// `quarry import beir <dir> --tenant <id|slug> ...`: loads a BEIR directory into a collection of the
// deployment (DATA_DIR / the environment) through the same import path as
// POST /industry-benchmarks/{name}/import, waits until every document is indexed, and prints the
// collection, data source and suite ids as JSON.
import path from "node:path";
import { loadConfig } from "../../config.js";
import { findDataset } from "../beir/beir-catalog.js";
import type { Command } from "commander";
import { missingBeirFiles } from "../beir/beir-import.js";
import { CliError } from "../../terminal/errors.js";
import { intArg } from "../../terminal/parsers.js";
import { createProgress } from "../../terminal/progress.js";

export interface ImportArgs {
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

/** Declares `import beir <dir>` and its options on `parent` (src/cli.ts); `run` gets the parsed arguments. */
export function addImportBeirCommand(parent: Command, run: (a: ImportArgs) => Promise<void>): Command {
  return parent
    .command("beir")
    .description("Load a BEIR-format directory (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) into a collection of the deployment in DATA_DIR and create a benchmark suite from the split's queries")
    .argument("<dir>", "BEIR data set directory, e.g. $BEIR_DATA_DIR/scifact")
    .requiredOption("--tenant <id>", "tenant id or slug (quarry tenants list)")
    .option("--collection-name <name>", "name of the new collection (default \"<data set> (BEIR)\")")
    .option("--collection <id>", "load into this existing collection instead (a data source is added)")
    .option("--split <name>", "qrels split", "test")
    .option("--max-queries <n>", "suite cases: the split's first N queries", intArg(1, 500))
    .option("--max-documents <n>", "reduced corpus: relevant documents of those queries plus the first others", intArg(1))
    .option("--top-k <k>", "suite top_k", intArg(1, 50), 10)
    .option("--no-suite", "load the documents only")
    .option("--lexical-only", "index without vectors (the backfill embeds them once the service runs)")
    .action(async (dir: string, o: { tenant: string; collectionName?: string; collection?: string; split: string; maxQueries?: number; maxDocuments?: number; topK: number; suite: boolean; lexicalOnly?: boolean }) => {
      await run({
        dir: path.resolve(dir),
        tenant: o.tenant,
        collectionName: o.collectionName ?? null,
        collectionId: o.collection ?? null,
        split: o.split,
        maxQueries: o.maxQueries ?? null,
        maxDocuments: o.maxDocuments ?? null,
        topK: o.topK,
        suite: o.suite,
        embed: !o.lexicalOnly,
      });
    });
}

export async function importCommand(a: ImportArgs): Promise<void> {
  const missing = missingBeirFiles(a.dir, a.split);
  if (missing.length) {
    throw new CliError(
      `${a.dir} is not a BEIR data set (missing ${missing.join(", ")})`,
      `Download it from ${findDataset(path.basename(a.dir))?.download_url ?? "https://github.com/beir-cellar/beir"} and unzip it into BEIR_DATA_DIR (${path.dirname(a.dir)})`,
      2,
    );
  }
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const config = loadConfig();
  const { openBenchRuntime, operatorPrincipal } = await import("./load.js");
  const rt = await openBenchRuntime(config.dataDir, log);
  try {
    const tenant = (await rt.store.tenants.list()).find((t) => t.id === a.tenant || t.slug === a.tenant);
    if (!tenant) throw new CliError(`No tenant '${a.tenant}' in ${config.dataDir}`, "Run `quarry tenants list` for the ids and slugs, or `quarry tenants create <name>`", 2);
    const dataset = path.basename(a.dir);
    const t0 = performance.now();
    const bar = createProgress("indexed");
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
      onProgress: ({ indexed, total, chunks }) => bar.update(indexed, total, `${chunks} chunks`),
    });
    const done = await job.done.finally(() => bar.stop());
    process.stdout.write(`${JSON.stringify({ ...job.started, status: "indexed", ...done, seconds: Math.round((performance.now() - t0) / 100) / 10 }, null, 2)}\n`);
  } finally {
    await rt.close();
  }
}
