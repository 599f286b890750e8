// `quarry bench --scale N` (npm run bench -- --scale N): the scale bench. A corpus of real text
// found on the machine (scale/text-sources.ts), loaded through the store's bulk path in one or
// more tenant layouts, measured in a fresh process per layout; report in bench-results/scale-*.
// The pieces live in src/evaluation/bench/scale/: corpus, queries, vectors, loader, exact, measure, report.
import { readSourceTexts } from "./scale/text-sources.js";
import { buildCorpus, type Corpus } from "./scale/corpus.js";
import { dfSample } from "./scale/queries.js";
import { parseScaleArgs, SCALE_USAGE, ScaleUsageError, type ScaleOptions } from "./scale/options.js";
import type { Layout } from "./scale/loader.js";
import { runLayout } from "./scale/run-layout.js";
import { renderScaleMarkdown, writeScaleReport, type ScaleReport } from "./scale/report.js";
import { machineInfo } from "./report.js";

const log = (m: string) => process.stderr.write(`${m}\n`);

const DF_SAMPLE_CHUNKS = 20_000;

function layoutsOf(o: ScaleOptions): Layout[] {
  const out: Layout[] = [];
  if (o.layouts.includes("one")) out.push({ label: `1 tenant x ${o.chunks.toLocaleString("en")}`, tenants: 1, chunksPerTenant: o.chunks });
  if (o.layouts.includes("tenants")) {
    const n = Math.floor(o.chunks / o.tenantChunks);
    out.push({ label: `${n} tenants x ${o.tenantChunks.toLocaleString("en")}`, tenants: n, chunksPerTenant: o.tenantChunks });
  }
  return out;
}

function sourcesOf(o: ScaleOptions): string[] {
  const r = o.roots;
  const s: string[] = [];
  if (r.dpkgStatus) s.push(`package descriptions (${r.dpkgStatus}${r.aptDumpavail ? " and `apt-cache dumpavail`" : ""})`);
  if (r.manDir) s.push(`man pages (${r.manDir}, roff stripped)`);
  if (r.docDir) s.push(`package documentation (${r.docDir}: text, HTML, gzip)`);
  return s;
}

function readCorpus(o: ScaleOptions): { corpus: Corpus; ms: number } {
  const t0 = performance.now();
  log(`reading text: ${sourcesOf(o).join("; ")}...`);
  const corpus = buildCorpus(readSourceTexts(o.roots), o.seed);
  if (corpus.realChunks === 0) throw new Error("no text found for the scale corpus; check --sources and the text locations");
  const ms = performance.now() - t0;
  log(`corpus: ${corpus.real.length} documents, ${corpus.realChunks} real chunks in ${(ms / 1000).toFixed(1)} s`);
  return { corpus, ms };
}

function corpusNote(corpus: Corpus, o: ScaleOptions): string {
  if (o.chunks <= corpus.realChunks) return `Each layout takes the first ${o.chunks.toLocaleString("en")} chunks of the shuffled real documents (seed ${o.seed}).`;
  return `There are ${corpus.realChunks.toLocaleString("en")} chunks of distinct real text, fewer than ${o.chunks.toLocaleString("en")}: after them come documents composed of runs of 1-3 real sentences sampled from that text (seed ${o.seed}), each chunk as long as a randomly chosen real one.`;
}

async function runScale(o: ScaleOptions, command: string): Promise<void> {
  const t0 = performance.now();
  const { corpus, ms } = readCorpus(o);
  const df = dfSample(corpus.real.flatMap((d) => d.chunks).slice(0, DF_SAMPLE_CHUNKS));
  const vectors = o.vectors === "model" ? "real embeddings from the active model (passages and queries)" : `clustered synthetic 512-d vectors (${o.clusters} topics; documents near a topic, chunks near their document, queries near the chunk they were sampled from; seed ${o.seed})`;
  const layouts: ScaleReport["layouts"] = [];
  const report: ScaleReport = {
    date: new Date().toISOString(),
    command,
    machine: machineInfo(),
    seed: o.seed,
    corpus: {
      sources: sourcesOf(o),
      extraction_ms: ms,
      real_documents: corpus.real.length,
      real_chunks: corpus.realChunks,
      duplicates_dropped: corpus.duplicatesDropped,
      by_origin: corpus.stats,
      note: corpusNote(corpus, o),
    },
    vectors,
    layouts,
    total_ms: 0,
  };
  let files = { md: "", json: "" };
  for (const layout of layoutsOf(o)) {
    layouts.push(await runLayout(o, corpus, df, layout));
    report.total_ms = performance.now() - t0;
    files = writeScaleReport(report, o.out); // after every layout: a long run that fails later keeps its figures
  }
  process.stdout.write(renderScaleMarkdown(report));
  log(`report: ${files.md} and ${files.json}`);
}

export async function scaleCommand(argv: string[]): Promise<number> {
  let o: ScaleOptions;
  try {
    o = parseScaleArgs(argv);
  } catch (err) {
    if (!(err instanceof ScaleUsageError)) throw err;
    if (err.message) log(`quarry bench --scale: ${err.message}\n`);
    log(SCALE_USAGE);
    return err.message ? 2 : 0;
  }
  await runScale(o, ["npm run bench --", ...argv].join(" "));
  return 0;
}
