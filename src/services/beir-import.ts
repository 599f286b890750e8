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
// Ids: document `source` is the BEIR `_id`, so cases and results map back to the qrels.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../store/types.js";
import type { FileStore } from "../store/files.js";
import type { IncomingDocument, Json } from "../store/content-types.js";
import { LimitReached } from "../store/content-types.js";
import { newId } from "../store/ids.js";
import { readCorpus, readQrels, readQueries, type BeirDocument } from "../search/beir.js";
import { textToBlocks } from "../ingest/parse/text.js";
import type { ParsedDocument } from "../ingest/types.js";
import type { IngestService, ParsedItem } from "./ingest.js";
import { acceptDocuments } from "./acceptance.js";
import type { CollectionService } from "./collections.js";
import type { SourceService } from "./sources.js";
import type { BenchmarkService } from "./benchmarks.js";
import { SUITE_LIMITS } from "./benchmarks.js";
import { tenantOf, type Principal } from "./auth.js";
import { conflict, notFound } from "./errors.js";
import { currentPeriod, limitsOf } from "./plans.js";
import { quotaExceededError } from "./quotas.js";

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

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** What a BEIR document becomes: title, and its text as paragraph blocks. */
export function beirParsed(d: BeirDocument): ParsedDocument {
  const title = oneLine(d.title) || d.id;
  const blocks = textToBlocks(d.text);
  // a document with a title and no text is still findable by its title
  return { kind: "markdown", title, blocks: blocks.length ? blocks : [{ type: "paragraph", text: title }], metadata: {} };
}

/** The stored twin: Markdown whose front matter keeps the title, so a reindex re-parses the same text. */
function markdownTwin(d: BeirDocument): Buffer {
  const title = oneLine(d.title) || d.id;
  return Buffer.from(`---\ntitle: ${title}\n---\n\n${d.text}\n`, "utf8");
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

export function createBeirImporter(deps: BeirImportDeps) {
  const content = deps.store.content;

  async function* selectedDocs(dir: string, keep: Set<string> | null): AsyncGenerator<BeirDocument> {
    for await (const d of readCorpus(dir)) if (!keep || keep.has(d.id)) yield d;
  }

  /** ids of the documents to load (null = all) and how many that is */
  async function plan(dir: string, required: Set<string>, maxDocuments: number | null): Promise<{ keep: Set<string> | null; count: number }> {
    let count = 0;
    if (maxDocuments === null) {
      for await (const _ of readCorpus(dir)) count++;
      return { keep: null, count };
    }
    const keep = new Set<string>();
    const room = Math.max(0, maxDocuments - required.size);
    let others = 0;
    for await (const d of readCorpus(dir)) {
      if (required.has(d.id)) keep.add(d.id);
      else if (others < room) {
        keep.add(d.id);
        others++;
      }
    }
    return { keep, count: keep.size };
  }

  /** Indexes the rows written by start(); two batches in flight so the model never waits for SQLite. */
  async function index(
    p: Principal,
    req: BeirImportRequest & { dir: string; dataset: string; split: string },
    sourceId: string,
    keep: Set<string> | null,
    idMap: Map<string, string>,
  ): Promise<BeirImportDone> {
    const tenantId = tenantOf(p).id;
    const t0 = performance.now();
    const batchSize = Math.max(1, req.batchSize ?? 64);
    const total = idMap.size;
    let indexed = 0;
    let failed = 0;
    let chunks = 0;
    let embedded = true;
    const inFlight = new Set<Promise<void>>();
    const submit = (items: ParsedItem[]) => {
      const job = deps.ingest.indexParsedBatch(tenantId, items, { embed: req.embed }).then((r) => {
        indexed += r.documents;
        failed += items.length - r.documents;
        chunks += r.chunks;
        if (!r.embedded) embedded = false;
        req.onProgress?.({ indexed: indexed + failed, total, chunks });
      });
      const tracked = job.finally(() => inFlight.delete(tracked));
      tracked.catch(() => undefined); // observed through race/all below; never an unhandled rejection
      inFlight.add(tracked);
      return tracked;
    };
    let batch: ParsedItem[] = [];
    for await (const d of selectedDocs(req.dir, keep)) {
      if (req.signal?.aborted) break;
      const documentId = idMap.get(d.id);
      if (!documentId) continue;
      batch.push({ documentId, parsed: beirParsed(d), metadata: { beir_dataset: req.dataset, beir_id: d.id, ...(d.metadata as Json) } });
      if (batch.length >= batchSize) {
        void submit(batch);
        batch = [];
        if (inFlight.size >= 2) await Promise.race(inFlight);
      }
    }
    if (batch.length && !req.signal?.aborted) void submit(batch);
    await Promise.all(inFlight);
    if (req.signal?.aborted) throw new Error("the import was stopped before every document was indexed; the rest are indexed at the next start");
    await content.updateSource(tenantId, sourceId, { last_synced_at: new Date().toISOString(), error: null });
    if (!embedded && req.embed !== false) deps.onUnembedded?.();
    return { documents: total, indexed, failed, chunks, embedded, ms: performance.now() - t0 };
  }

  return {
    /**
     * Validates, creates the collection (unless given), the data source, every document row and
     * the suite, then returns; `done` indexes the documents. Nothing is written when the files,
     * the collection or the plan's document quota say no.
     */
    async start(p: Principal, req: BeirImportRequest): Promise<BeirImport> {
      const tenant = tenantOf(p);
      const dir = path.resolve(req.dir);
      const dataset = req.dataset ?? path.basename(dir);
      const title = req.title ?? dataset;
      const split = req.split ?? "test";
      const missing = missingBeirFiles(dir, split);
      if (missing.length) {
        throw conflict(`The BEIR data set in ${dir} is incomplete for split '${split}': missing ${missing.join(", ")}.`);
      }
      if (req.collectionId && !(await content.getCollection(tenant.id, req.collectionId))) throw notFound("Collection", req.collectionId);

      // cases: the split's queries in qrels order, with text, within the limits
      const [qrels, queries] = await Promise.all([readQrels(dir, split), readQueries(dir)]);
      const cap = Math.min(req.maxQueries ?? SUITE_LIMITS.maxCases, SUITE_LIMITS.maxCases);
      const chosen: string[] = [];
      for (const qid of qrels.keys()) {
        const text = queries.get(qid)?.trim() ?? "";
        if (chosen.length < cap && text.length >= 1 && text.length <= SUITE_LIMITS.maxQueryLength) chosen.push(qid);
      }
      const required = new Set(chosen.flatMap((q) => [...(qrels.get(q)?.keys() ?? [])]));
      const { keep, count } = await plan(dir, required, req.maxDocuments ?? null);

      const limit = limitsOf(tenant.plan).documents;
      if (limit !== null) {
        const used = (await deps.store.usage.counts(tenant.id, currentPeriod())).documents;
        if (used + count > limit) throw quotaExceededError("documents", tenant.plan, used, limit, count);
      }

      // the source first: it is the one that can hit a plan limit (429) before anything exists
      const source = await deps.sources.create(p, {
        name: `BEIR ${title} (${split})`.slice(0, 200),
        source_type: "upload",
        configuration: { beir: { dataset, split } },
        collection_ids: req.collectionId ? [req.collectionId] : [],
      });
      const collectionId =
        req.collectionId ??
        (await deps.collections.create(p, { name: (req.collectionName ?? `${title} (BEIR)`).slice(0, 160), data_source_ids: [source.id] })).id;

      // every row first (queued), with its stored twin
      const idMap = new Map<string, string>();
      let rows: IncomingDocument[] = [];
      const twins = new Map<string, Buffer>();
      const flush = async () => {
        if (rows.length === 0) return;
        const items = await Promise.all(
          rows.map(async (doc) => {
            const tempPath = deps.files.tempPath();
            await fsp.writeFile(tempPath, twins.get(doc.source)!);
            return { doc, tempPath };
          }),
        );
        let written;
        try {
          written = await acceptDocuments({ content, files: deps.files }, tenant.id, source.id, items, limit);
        } catch (err) {
          await Promise.all(items.map((it) => it.tempPath && fsp.rm(it.tempPath, { force: true })));
          if (err instanceof LimitReached) throw quotaExceededError("documents", tenant.plan, err.used, err.limit, err.adding);
          throw err;
        }
        for (const row of written) idMap.set(row.source, row.id);
        rows = [];
        twins.clear();
      };
      for await (const d of selectedDocs(dir, keep)) {
        const bytes = markdownTwin(d);
        twins.set(d.id, bytes);
        rows.push({
          id: newId("doc"),
          source: d.id,
          title: oneLine(d.title) || d.id,
          source_type: "upload",
          kind: "markdown",
          content_type: "text/markdown",
          size_bytes: bytes.length,
          content_hash: createHash("sha256").update(bytes).digest("hex"),
          metadata: { beir_dataset: dataset, beir_id: d.id, ...(d.metadata as Json) },
        });
        if (rows.length >= 1000) await flush();
      }
      await flush();

      // the suite: relevant ids mapped to Quarry ids; a query none of whose documents exist is left out
      const cases: { query: string; relevant_document_ids: string[] }[] = [];
      const queryIds: string[] = [];
      for (const qid of chosen) {
        const relevant = [...(qrels.get(qid)?.keys() ?? [])].map((id) => idMap.get(id)).filter((id): id is string => !!id);
        if (relevant.length === 0) continue;
        cases.push({ query: queries.get(qid)!.trim(), relevant_document_ids: relevant });
        queryIds.push(qid);
      }
      let suiteId: string | null = null;
      if ((req.createSuite ?? true) && cases.length > 0) {
        const suite = await deps.benchmarks.create(
          p,
          {
            name: `${title} ${split} (${cases.length} queries)`.slice(0, 200),
            description:
              `BEIR ${title}, ${split} split: ${cases.length} of ${qrels.size} queries, ${count} documents` +
              `${keep ? " (reduced corpus: scores are not comparable with published ones)" : ""}. ` +
              "Relevance is binary; the run's ndcg_at_k compares with published nDCG@10 when top_k is 10.",
            collection_id: collectionId,
            top_k: req.topK ?? 10,
            cases,
          },
          { dataset, split, query_ids: queryIds, reduced_corpus: keep !== null },
        );
        suiteId = suite.id;
      }

      const started: BeirImportStarted = {
        dataset,
        split,
        status: "indexing",
        collection_id: collectionId,
        data_source_id: source.id,
        suite_id: suiteId,
        documents: idMap.size,
        cases: cases.length,
        skipped_queries: qrels.size - cases.length,
      };
      const done = index(p, { ...req, dir, dataset, split }, source.id, keep, idMap);
      // the caller may not await `done` (HTTP answers 202): failures are logged and shown on the source
      done.catch(async (err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        deps.log.error({ err, dataset, source: source.id }, "BEIR import failed");
        await content.updateSource(tenant.id, source.id, { error: `Import of ${dataset} stopped: ${why}` }).catch(() => undefined);
      });
      return { started, idMap, queryIds, done };
    },
  };
}

export type BeirImporter = ReturnType<typeof createBeirImporter>;
