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
import { tenantOf, type Principal } from "../../services/auth/auth.js";
import { conflict, notFound } from "../../services/errors.js";
import type { BeirImport, BeirImportDeps, BeirImportRequest, BeirImportStarted } from "./beir-types.js";
import { checkDocumentQuota, chooseQueries, createBeirSuite, indexBeirDocuments, planDocuments, writeDocumentRows } from "./beir-load.js";

export { beirParsed } from "./beir-load.js";

export type { BeirImportRequest, BeirImportStarted, BeirImportDone, BeirImport, BeirImportDeps } from "./beir-types.js";
/** Missing files of a BEIR directory for a split (empty when it is complete). */
export function missingBeirFiles(dir: string, split: string): string[] {
  const need = ["corpus.jsonl", "queries.jsonl", path.join("qrels", `${split}.tsv`)];
  return need.filter((f) => !fs.existsSync(path.join(dir, f)));
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
