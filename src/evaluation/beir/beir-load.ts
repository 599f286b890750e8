// The BEIR import's steps: which documents and queries to load, the queued document rows with
// their stored twins, the suite, and the indexing that `done` waits for. Each takes the
// importer's dependencies explicitly; beir-import.ts puts them in order.
import fsp from "node:fs/promises";
import { createHash } from "node:crypto";
import type { TenantRow } from "../../store/types.js";
import type { IncomingDocument, Json } from "../../store/content-types.js";
import { LimitReached } from "../../store/content-types.js";
import { newId } from "../../store/ids.js";
import { readCorpus, readQrels, readQueries, type BeirDocument, type BeirQrels } from "./beir-files.js";
import { textToBlocks } from "../../ingest/parse/text.js";
import type { ParsedDocument } from "../../ingest/types.js";
import type { ParsedItem } from "../../services/ingest/ingest-types.js";
import { acceptDocuments } from "../../services/documents/acceptance.js";
import { SUITE_LIMITS } from "../benchmarks/benchmarks.js";
import { tenantOf, type Principal } from "../../services/auth/auth.js";
import { currentPeriod, limitsOf } from "../../services/tenants/plans.js";
import { quotaExceededError } from "../../services/tenants/quotas.js";
import type { BeirImportDeps, BeirImportDone, BeirImportRequest } from "./beir-types.js";

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** What a BEIR document becomes: title, and its text as paragraph blocks. */
export function beirParsed(d: BeirDocument): ParsedDocument {
  const title = oneLine(d.title) || d.id;
  const blocks = textToBlocks(d.text);
  // a document with a title and no text is still findable by its title
  return { kind: "markdown", title, blocks: blocks.length ? blocks : [{ type: "paragraph", text: title }], metadata: {} };
}

/** The stored twin: Markdown whose front matter keeps the title, so a reindex re-parses the same text. */
export function markdownTwin(d: BeirDocument): Buffer {
  const title = oneLine(d.title) || d.id;
  return Buffer.from(`---\ntitle: ${title}\n---\n\n${d.text}\n`, "utf8");
}

export async function* selectedDocs(dir: string, keep: Set<string> | null): AsyncGenerator<BeirDocument> {
  for await (const d of readCorpus(dir)) if (!keep || keep.has(d.id)) yield d;
}

/** ids of the documents to load (null = all) and how many that is */
export async function planDocuments(dir: string, required: Set<string>, maxDocuments: number | null): Promise<{ keep: Set<string> | null; count: number }> {
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

export interface BeirQueries {
  qrels: BeirQrels;
  queries: Map<string, string>;
  /** the split's queries in qrels order, with text, within the limits */
  chosen: string[];
  /** the documents the chosen queries judge relevant; a reduced corpus always keeps them */
  required: Set<string>;
}

export async function chooseQueries(dir: string, split: string, maxQueries: number | null | undefined): Promise<BeirQueries> {
  const [qrels, queries] = await Promise.all([readQrels(dir, split), readQueries(dir)]);
  const cap = Math.min(maxQueries ?? SUITE_LIMITS.maxCases, SUITE_LIMITS.maxCases);
  const chosen: string[] = [];
  for (const qid of qrels.keys()) {
    const text = queries.get(qid)?.trim() ?? "";
    if (chosen.length < cap && text.length >= 1 && text.length <= SUITE_LIMITS.maxQueryLength) chosen.push(qid);
  }
  const required = new Set(chosen.flatMap((q) => [...(qrels.get(q)?.keys() ?? [])]));
  return { qrels, queries, chosen, required };
}

/** The plan's document limit (null: none); refuses up front an import that would exceed it. */
export async function checkDocumentQuota(deps: Pick<BeirImportDeps, "store">, tenant: TenantRow, count: number): Promise<number | null> {
  const limit = limitsOf(tenant.plan).documents;
  if (limit !== null) {
    const used = (await deps.store.usage.counts(tenant.id, currentPeriod())).documents;
    if (used + count > limit) throw quotaExceededError("documents", tenant.plan, used, limit, count);
  }
  return limit;
}

interface RowTarget {
  tenant: TenantRow;
  sourceId: string;
  dataset: string;
  /** the plan's document limit, checked again as rows are written */
  limit: number | null;
}

/** Writes one batch of queued rows with their twins; the temp files go when the write fails. */
async function writeRows(deps: Pick<BeirImportDeps, "store" | "files">, t: RowTarget, rows: IncomingDocument[], twins: Map<string, Buffer>, idMap: Map<string, string>): Promise<void> {
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
    written = await acceptDocuments({ content: deps.store.content, files: deps.files }, t.tenant.id, t.sourceId, items, t.limit);
  } catch (err) {
    await Promise.all(items.map((it) => it.tempPath && fsp.rm(it.tempPath, { force: true })));
    if (err instanceof LimitReached) throw quotaExceededError("documents", t.tenant.plan, err.used, err.limit, err.adding);
    throw err;
  }
  for (const row of written) idMap.set(row.source, row.id);
}

/** Every row first (queued), with its stored twin, in batches of 1000. Returns BEIR `_id` -> document id. */
export async function writeDocumentRows(deps: Pick<BeirImportDeps, "store" | "files">, t: RowTarget, dir: string, keep: Set<string> | null): Promise<Map<string, string>> {
  const idMap = new Map<string, string>();
  let rows: IncomingDocument[] = [];
  const twins = new Map<string, Buffer>();
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
      metadata: { beir_dataset: t.dataset, beir_id: d.id, ...(d.metadata as Json) },
    });
    if (rows.length >= 1000) {
      await writeRows(deps, t, rows, twins, idMap);
      rows = [];
      twins.clear();
    }
  }
  await writeRows(deps, t, rows, twins, idMap);
  return idMap;
}

export interface SuiteSpec {
  title: string;
  dataset: string;
  split: string;
  collectionId: string;
  /** documents loaded, for the description */
  count: number;
  keep: Set<string> | null;
  topK?: number;
  createSuite?: boolean;
}

/**
 * The suite: relevant ids mapped to Quarry ids; a query none of whose documents exist is left out.
 * The suite itself is created only when asked and when any case is left.
 */
export async function createBeirSuite(
  deps: Pick<BeirImportDeps, "benchmarks">,
  p: Principal,
  q: BeirQueries,
  idMap: Map<string, string>,
  s: SuiteSpec,
): Promise<{ cases: number; queryIds: string[]; suiteId: string | null }> {
  const cases: { query: string; relevant_document_ids: string[] }[] = [];
  const queryIds: string[] = [];
  for (const qid of q.chosen) {
    const relevant = [...(q.qrels.get(qid)?.keys() ?? [])].map((id) => idMap.get(id)).filter((id): id is string => !!id);
    if (relevant.length === 0) continue;
    cases.push({ query: q.queries.get(qid)!.trim(), relevant_document_ids: relevant });
    queryIds.push(qid);
  }
  if (!(s.createSuite ?? true) || cases.length === 0) return { cases: cases.length, queryIds, suiteId: null };
  const suite = await deps.benchmarks.create(
    p,
    {
      name: `${s.title} ${s.split} (${cases.length} queries)`.slice(0, 200),
      description:
        `BEIR ${s.title}, ${s.split} split: ${cases.length} of ${q.qrels.size} queries, ${s.count} documents` +
        `${s.keep ? " (reduced corpus: scores are not comparable with published ones)" : ""}. ` +
        "Relevance is binary; the run's ndcg_at_k compares with published nDCG@10 when top_k is 10.",
      collection_id: s.collectionId,
      top_k: s.topK ?? 10,
      cases,
    },
    { dataset: s.dataset, split: s.split, query_ids: queryIds, reduced_corpus: s.keep !== null },
  );
  return { cases: cases.length, queryIds, suiteId: suite.id };
}

/** Indexes the rows written by start(); two batches in flight so the model never waits for SQLite. */
export async function indexBeirDocuments(
  deps: Pick<BeirImportDeps, "store" | "ingest" | "onUnembedded">,
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
    batch.push({ documentId, sourceId, parsed: beirParsed(d), metadata: { beir_dataset: req.dataset, beir_id: d.id, ...(d.metadata as Json) } });
    if (batch.length >= batchSize) {
      void submit(batch);
      batch = [];
      if (inFlight.size >= 2) await Promise.race(inFlight);
    }
  }
  if (batch.length && !req.signal?.aborted) void submit(batch);
  await Promise.all(inFlight);
  if (req.signal?.aborted) throw new Error("the import was stopped before every document was indexed; the rest are indexed at the next start");
  await deps.store.content.updateSource(tenantId, sourceId, { last_synced_at: new Date().toISOString(), error: null });
  if (!embedded && req.embed !== false) deps.onUnembedded?.();
  return { documents: total, indexed, failed, chunks, embedded, ms: performance.now() - t0 };
}
