// Ingest throughput: lexical-only indexing of the whole data set (model off), the full load's
// chunks/s (from the main load), and the embedding cost of the ingest path against the bare model
// on the same texts and batch size, both measured here in one run.
//
// The scratch loads run in a runtime of their own on a temporary DATA_DIR: FTS5 keeps counting
// deleted rows in its BM25 statistics (contentless_delete), so loading and deleting them in the
// bench's main database would shift the lexical scores of a reused --data-dir.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Runtime } from "../../runtime.js";
import { chunkDocument } from "../../ingest/chunk.js";
import { readCorpus } from "../beir/beir-files.js";
import { beirParsed } from "../beir/beir-import.js";
import { passageText } from "../../services/ingest/ingest.js";
import { openBenchRuntime, operatorPrincipal, type LoadStats } from "./load.js";

export interface Throughput {
  documents: number;
  chunks: number;
  ms: number;
  chunks_per_s: number;
}

export interface IngestResult {
  lexical_only: Throughput;
  /** the main load (chunk + embed + write), null when the load was reused */
  full: Throughput | null;
  embedding: {
    documents: number;
    chunks: number;
    batch_size: number;
    /** mean of two timings, one before and one after the ingest path's */
    bare_ms: number;
    ingest_ms: number;
    bare_chunks_per_s: number;
    ingest_chunks_per_s: number;
    /** ingest time / bare model time on the same texts (target <= 1.5) */
    ratio: number;
  } | null;
}

const rate = (chunks: number, ms: number) => (ms > 0 ? chunks / (ms / 1000) : 0);

/** Loads into a throw-away tenant, measures, and removes the tenant's data again. */
async function scratchImport(rt: Runtime, dir: string, opts: { embed: boolean; maxDocuments: number | null; maxQueries: number | null }): Promise<Throughput> {
  const created = await rt.tenants.create({ name: `Bench scratch ${Date.now()}` });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const principal = operatorPrincipal((await rt.store.tenants.get(created.tenant.id))!);
  try {
    const job = await rt.industryBenchmarks.importer.start(principal, {
      dir,
      split: "test",
      createSuite: false,
      embed: opts.embed,
      maxDocuments: opts.maxDocuments,
      maxQueries: opts.maxQueries,
      collectionName: "scratch",
    });
    const done = await job.done;
    await rt.sources.remove(principal, job.started.data_source_id);
    return { documents: done.indexed, chunks: done.chunks, ms: done.ms, chunks_per_s: rate(done.chunks, done.ms) };
  } finally {
    await rt.purgeTenantContent(created.tenant.id);
  }
}

export async function measureIngest(
  dataset: string,
  split: string,
  load: LoadStats,
  o: { maxDocuments: number | null; limitQueries: number | null; embeddingSampleDocs: number },
  log: (msg: string) => void,
  env: Record<string, string> = {},
): Promise<IngestResult> {
  void split;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-ingest-"));
  const rt = await openBenchRuntime(dir, log, env);
  try {
    return await measure(rt, dataset, load, o, log);
  } finally {
    await rt.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(
  rt: Runtime,
  dataset: string,
  load: LoadStats,
  o: { maxDocuments: number | null; limitQueries: number | null; embeddingSampleDocs: number },
  log: (msg: string) => void,
): Promise<IngestResult> {
  const lexical = await scratchImport(rt, dataset, { embed: false, maxDocuments: o.maxDocuments, maxQueries: o.limitQueries });
  log(`  lexical-only indexing: ${lexical.chunks} chunks in ${(lexical.ms / 1000).toFixed(1)} s = ${lexical.chunks_per_s.toFixed(0)} chunks/s`);
  const full = load.reused ? null : { documents: load.documents, chunks: load.chunks, ms: load.indexMs, chunks_per_s: rate(load.chunks, load.indexMs) };
  if (full) log(`  full indexing (with embeddings): ${full.chunks} chunks in ${(full.ms / 1000).toFixed(1)} s = ${full.chunks_per_s.toFixed(1)} chunks/s`);

  const embedder = rt.embedder;
  // embeddingSampleDocs 0: the embedding path is the same whatever the store, measured once
  if (!embedder || embedder.status().state !== "ready" || o.embeddingSampleDocs === 0) return { lexical_only: lexical, full, embedding: null };

  // the same passages the ingest path embeds for the first N documents
  const texts: string[] = [];
  let docs = 0;
  for await (const d of readCorpus(dataset)) {
    const parsed = beirParsed(d);
    const drafts = chunkDocument(parsed, { chunkSizeTokens: rt.activeProfile.chunk_size_tokens, chunkOverlapTokens: rt.activeProfile.chunk_overlap_tokens });
    for (const c of drafts) texts.push(passageText(parsed.title, c.headingPath, c.text));
    if (++docs >= o.embeddingSampleDocs) break;
  }
  const batchSize = typeof rt.activeProfile.options.batch_size === "number" ? rt.activeProfile.options.batch_size : 32;
  const bare = async () => {
    const t0 = performance.now();
    await embedder.embedPassages(texts);
    return performance.now() - t0;
  };
  // bare, ingest, bare: the mean of the two bare timings brackets the ingest one (drift, warm-up)
  const bare1 = await bare();
  const ingest = await scratchImport(rt, dataset, { embed: true, maxDocuments: docs, maxQueries: 0 });
  const bareMs = (bare1 + (await bare())) / 2;
  const embedding = {
    documents: docs,
    chunks: texts.length,
    batch_size: batchSize,
    bare_ms: bareMs,
    ingest_ms: ingest.ms,
    bare_chunks_per_s: rate(texts.length, bareMs),
    ingest_chunks_per_s: rate(ingest.chunks, ingest.ms),
    ratio: ingest.ms / bareMs,
  };
  log(
    `  embedding ${texts.length} chunks: bare model ${embedding.bare_chunks_per_s.toFixed(1)} chunks/s, ingest path ${embedding.ingest_chunks_per_s.toFixed(1)} chunks/s (ratio ${embedding.ratio.toFixed(2)})`,
  );
  return { lexical_only: lexical, full, embedding };
}
