// `npm run bench:embed`: the embedding layer's own speed, per profile, in one run on the same texts:
// passage chunks/s (the ingest path's passages of the first SciFact documents, one embedPassages
// call) and per-query latency and CPU (unseen SciFact queries, one at a time), plus the cost of the
// package's SentencePiece tokenizer against ours on those passages. Retrieval quality is
// `npm run bench`'s job (EMBEDDING_PROFILE selects the profile there).
//
//   npm run bench:embed -- [--dataset DIR] [--docs 200] [--queries 200] [--profiles default,use-lite-static]
//
// A use-lite profile's runtime can be picked per entry: `--profiles default,default@tfjs` measures
// onnxruntime (the default) and TensorFlow.js in one run. "RSS added" is the process's growth
// since the profile started, so it reads true only for the first profile of a run: compare
// memory with one profile a run.
import path from "node:path";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { loadConfig } from "../../config.js";
import { chunkDocument } from "../../ingest/chunk.js";
import { readCorpus, readQueries } from "../beir/beir-files.js";
import { percentile } from "../ranking-metrics.js";
import { beirParsed } from "../beir/beir-import.js";
import { beirDataDir } from "../benchmarks/industry-benchmarks.js";
import { passageText } from "../../services/ingest/ingest.js";
import { createEmbedder, loadProfiles, resolveActiveProfile } from "../../embed/index.js";
import { SentencePieceTokenizer } from "../../embed/sentencepiece.js";
import { readVocabulary } from "../../embed/static-table.js";

interface Args {
  dataset: string;
  docs: number;
  queries: number;
  profiles: string[];
}

/** the options (node:util parseArgs: unknown options and missing values are refused with their name) */
function options(argv: string[], defaultDataset: string): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      dataset: { type: "string", default: defaultDataset },
      docs: { type: "string", default: "200" },
      queries: { type: "string", default: "200" },
      profiles: { type: "string", default: "default,use-lite-static" },
    },
  });
  const a: Args = { dataset: path.resolve(values.dataset), docs: Number(values.docs), queries: Number(values.queries), profiles: values.profiles.split(",") };
  if (!(a.docs >= 1) || !(a.queries >= 1)) throw new Error("--docs and --queries must be positive numbers");
  return a;
}

async function passagesOf(dataset: string, docs: number, size: number, overlap: number): Promise<string[]> {
  const texts: string[] = [];
  let n = 0;
  for await (const d of readCorpus(dataset)) {
    const parsed = beirParsed(d);
    for (const c of chunkDocument(parsed, { chunkSizeTokens: size, chunkOverlapTokens: overlap })) texts.push(passageText(parsed.title, c.headingPath, c.text));
    if (++n >= docs) break;
  }
  return texts;
}

/** ms per text of the package's tokenizer and of ours, on the same texts (same ids, checked). */
function tokenizerCost(texts: string[]): { packageMs: number; oursMs: number } {
  const { vocabulary } = readVocabulary();
  const pkg = createRequire(import.meta.url)("@energetic-ai/embeddings") as {
    EmbeddingsModel: new (d: { vocabulary: unknown; model: unknown }) => { tokenizer: { encode(t: string): number[] } };
  };
  const reference = new pkg.EmbeddingsModel({ vocabulary, model: null }).tokenizer;
  const ours = new SentencePieceTokenizer(vocabulary);
  for (const t of texts.slice(0, 20)) ours.encode(t) && reference.encode(t); // JIT warm-up
  let t0 = performance.now();
  const a = texts.map((t) => reference.encode(t));
  const packageMs = (performance.now() - t0) / texts.length;
  t0 = performance.now();
  const b = texts.map((t) => ours.encode(t));
  const oursMs = (performance.now() - t0) / texts.length;
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("the tokenizers disagree");
  return { packageMs, oursMs };
}

async function measureProfile(entry: string, passages: string[], queries: string[]): Promise<string> {
  const config = loadConfig();
  const [name, runtime] = entry.split("@");
  const named = resolveActiveProfile(loadProfiles({ profilesFile: config.embeddingProfilesFile }), name);
  const profile = runtime ? { ...named, options: { ...named.options, runtime } } : named;
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const embedder = createEmbedder(profile, { modelsDir: config.modelsDir, allowDownload: false, poolSize: config.embedWorkers });
  try {
    if (!(await embedder.whenReady())) return `| ${entry} | unavailable: ${embedder.status().detail} | | | | | |`;
    const readyS = (performance.now() - t0) / 1000;
    await embedder.embedPassages(passages.slice(0, 8)); // warm-up (JIT, kernels), not timed
    await embedder.embedQuery("warm-up query, not timed");
    const p0 = performance.now();
    await embedder.embedPassages(passages);
    const chunksPerS = passages.length / ((performance.now() - p0) / 1000);
    const lat: number[] = [];
    const cpu0 = process.cpuUsage(); // all threads of the process, model workers included
    for (const q of queries) {
      const q0 = performance.now();
      await embedder.embedQuery(q);
      lat.push(performance.now() - q0);
    }
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000 / queries.length;
    // The whole process, model workers included: what the profile adds to a server's RSS.
    const addedMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
    const f = (x: number | null, d = 2) => (x === null ? "-" : x.toFixed(d));
    return `| ${entry} | ${f(readyS, 1)} | ${f(chunksPerS, 1)} | ${f(percentile(lat, 50))} | ${f(percentile(lat, 95))} | ${f(cpuMs)} | ${f(addedMb, 0)} |`;
  } finally {
    await embedder.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  const a = options(argv, path.join(beirDataDir(config.beirDataDir, config.dataDir), "scifact"));
  const passages = await passagesOf(a.dataset, a.docs, 400, 40);
  const queries = [...new Set((await readQueries(a.dataset)).values())].slice(0, a.queries);
  const tok = tokenizerCost(passages);
  const out = [
    `Embedding speed: ${passages.length} passages of the first ${a.docs} documents of ${a.dataset} (400/40-token chunks), ${queries.length} unseen queries.`,
    "",
    `SentencePiece tokenizer, ms per passage: package ${tok.packageMs.toFixed(2)}, ours ${tok.oursMs.toFixed(3)} (x${(tok.packageMs / tok.oursMs).toFixed(0)}, same ids)`,
    "",
    "| profile | ready s | passages chunks/s | query p50 ms | query p95 ms | query CPU ms | RSS added MB |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const name of a.profiles) {
    process.stderr.write(`measuring ${name}...\n`);
    out.push(await measureProfile(name, passages, queries));
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench:embed failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
