// Loads a BEIR-format data set (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) into a collection
// and makes a benchmark suite of its queries. Used by POST /industry-benchmarks/{name}/import,
// `quarry import beir` and `quarry bench`.
//
// Speed: documents are not parsed from files (no parse worker per document). Each one becomes a
// ParsedDocument (title + paragraph blocks) and goes to ingest.indexParsedBatch in batches: one
// embedding call per batch, spread over the embedder's workers, two batches in flight.
// Durability: every document row is written first (status queued) with a Markdown twin of the
// document in the file store, so POST /reindex can re-parse it and a crash mid-import leaves
// queued documents that the job queue finishes at the next start (the ingest recovery hook in runtime.ts).
// Ids: document `source` is the BEIR `_id`, so cases and results map back to the qrels.//
// The steps are named functions taking the importer's dependencies (beir-load.ts);
// startBeirImport puts them in order and createBeirImporter binds it for the runtime.
import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import type { Store } from "../store/types.js";
import type { FileStore } from "../store/files.js";
import type { IngestService } from "./ingest.js";
import type { CollectionService } from "./collections.js";
import type { SourceService } from "./sources.js";
import type { BenchmarkService } from "./benchmarks.js";
import { tenantOf, type Principal } from "./auth.js";
import { conflict, notFound } from "./errors.js";
import { checkDocumentQuota, chooseQueries, createBeirSuite, indexBeirDocuments, planDocuments, writeDocumentRows } from "./beir-load.js";

export { beirParsed } from "./beir-load.js";

export interface BeirImportRequest {
  /** directory holding corpus.jsonl, queries.jsonl and qrels/<split>.tsv */
  dir: string;
  /** short name for labels (directory name by default) */
  dataset?: string;
  /** display name of the data set (SciFact) */
  title?: string;
  split?: string;
  /** load into this collection (a new data source is attached to it); default: a new collection */
  collectionId?: string | null;
  collectionName?: string | null;
  /** cases of the suite: the split's first queries in qrels order, at most 500 (the suite limit) */
  maxQueries?: number | null;
  /**
   * Smaller corpus for quick checks: the relevant documents of the chosen queries plus the first
   * other documents of the corpus, up to this many in all. Scores are then not comparable with
   * published ones (fewer distractors).
   */
  maxDocuments?: number | null;
  /** create the benchmark suite (default true) */
  createSuite?: boolean;
  topK?: number;
  /** false: index lexically only, without vectors (measurements; the backfill embeds later) */
  embed?: boolean;
  /** documents per indexing batch (default 64) */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (p: { indexed: number; total: number; chunks: number }) => void;
}

export interface BeirImportStarted {
  dataset: string;
  split: string;
  status: "indexing";
  collection_id: string;
  data_source_id: string;
  suite_id: string | null;
  documents: number;
  cases: number;
  /** queries of the split left out: over max_queries or the 500-case limit, no text, or no relevant document in the corpus */
  skipped_queries: number;
}

export interface BeirImportDone {
  documents: number;
  indexed: number;
  failed: number;
  chunks: number;
  /** false when any batch was stored without vectors */
  embedded: boolean;
  ms: number;
}

export interface BeirImport {
  started: BeirImportStarted;
  /** BEIR `_id` -> Quarry document id */
  idMap: Map<string, string>;
  /** BEIR query ids of the suite's cases, in case order */
  queryIds: string[];
  /** resolves when every document is indexed */
  done: Promise<BeirImportDone>;
}

/** Missing files of a BEIR directory for a split (empty when it is complete). */
export function missingBeirFiles(dir: string, split: string): string[] {
  const need = ["corpus.jsonl", "queries.jsonl", path.join("qrels", `${split}.tsv`)];
  return need.filter((f) => !fs.existsSync(path.join(dir, f)));
}

export interface BeirImportDeps {
  store: Store;
  files: FileStore;
  ingest: IngestService;
  collections: Pick<CollectionService, "create">;
  sources: Pick<SourceService, "create">;
  benchmarks: BenchmarkService;
  log: Logger;
  /** chunks were committed without vectors: ask the backfill to embed them */
  onUnembedded?: () => void;
}

/** The data source first: it is the one that can hit a plan limit (429) before anything exists. */
async function createTargets(deps: Pick<BeirImportDeps, "sources" | "collections">, p: Principal, req: BeirImportRequest, title: string, dataset: string, split: string) {
  const source = await deps.sources.create(p, {
    name: `BEIR ${title} (${split})`.slice(0, 200),
    source_type: "upload",
    configuration: { beir: { dataset, split } },
    collection_ids: req.collectionId ? [req.collectionId] : [],
  });
  const collectionId =
    req.collectionId ??
    (await deps.collections.create(p, { name: (req.collectionName ?? `${title} (BEIR)`).slice(0, 160), data_source_ids: [source.id] })).id;
  return { sourceId: source.id, collectionId };
}

/**
 * Validates, creates the collection (unless given), the data source, every document row and
 * the suite, then returns; `done` indexes the documents. Nothing is written when the files,
 * the collection or the plan's document quota say no.
 */
export async function startBeirImport(deps: BeirImportDeps, p: Principal, req: BeirImportRequest): Promise<BeirImport> {
  const tenant = tenantOf(p);
  const dir = path.resolve(req.dir);
  const dataset = req.dataset ?? path.basename(dir);
  const title = req.title ?? dataset;
  const split = req.split ?? "test";
  const missing = missingBeirFiles(dir, split);
  if (missing.length) {
    throw conflict(`The BEIR data set in ${dir} is incomplete for split '${split}': missing ${missing.join(", ")}.`);
  }
  if (req.collectionId && !(await deps.store.content.getCollection(tenant.id, req.collectionId))) throw notFound("Collection", req.collectionId);

  const q = await chooseQueries(dir, split, req.maxQueries);
  const { keep, count } = await planDocuments(dir, q.required, req.maxDocuments ?? null);
  const limit = await checkDocumentQuota(deps, tenant, count);
  const { sourceId, collectionId } = await createTargets(deps, p, req, title, dataset, split);
  const idMap = await writeDocumentRows(deps, { tenant, sourceId, dataset, limit }, dir, keep);
  const suite = await createBeirSuite(deps, p, q, idMap, { title, dataset, split, collectionId, count, keep, topK: req.topK, createSuite: req.createSuite });

  const started: BeirImportStarted = {
    dataset,
    split,
    status: "indexing",
    collection_id: collectionId,
    data_source_id: sourceId,
    suite_id: suite.suiteId,
    documents: idMap.size,
    cases: suite.cases,
    skipped_queries: q.qrels.size - suite.cases,
  };
  const done = indexBeirDocuments(deps, p, { ...req, dir, dataset, split }, sourceId, keep, idMap);
  // the caller may not await `done` (HTTP answers 202): failures are logged and shown on the source
  done.catch(async (err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    deps.log.error({ err, dataset, source: sourceId }, "BEIR import failed");
    await deps.store.content.updateSource(tenant.id, sourceId, { error: `Import of ${dataset} stopped: ${why}` }).catch(() => undefined);
  });
  return { started, idMap, queryIds: suite.queryIds, done };
}

export function createBeirImporter(deps: BeirImportDeps) {
  return {
    /** Creates everything an import needs and returns; `done` indexes the documents. */
    start: (p: Principal, req: BeirImportRequest) => startBeirImport(deps, p, req),
  };
}

export type BeirImporter = ReturnType<typeof createBeirImporter>;
