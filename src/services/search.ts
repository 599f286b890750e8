// POST /search and POST /retrieve: resolve the collection inside the tenant, count the query
// against the plan, rank with the hybrid engine, then shape hits (snippets) or contexts
// (citations, token budget).
import type { Store } from "../store/types.js";
import type { Json, LexicalWeights } from "../store/content-types.js";

/** What ranking needs of a collection. */
export interface CollectionScope {
  settings: Json;
  data_source_ids: string[];
}
import type { Engine, EngineSettings, RetrievalMode } from "../search/engine.js";
import { DEFAULT_ENGINE_SETTINGS, DOCUMENT_EVIDENCE_OTHERS } from "../search/engine.js";
import { queryTerms } from "../search/fts-query.js";
import { assembleRetrieve, neighbourRanges, selectMatches, type ChunkRecord, type ScoredChunk } from "../search/retrieve-assembly.js";
import type { FusionOptions } from "../search/fusion.js";
import { relativeCutoff, RETRIEVE_CUTOFF } from "../search/calibration.js";

/** The /retrieve cutoff (documented in the API schema). */
export { RETRIEVE_CUTOFF };
import { tenantOf, type Principal } from "./auth.js";
import { notFound } from "./errors.js";
import { chunkRecord, searchHit } from "./chunk-hits.js";
import type { QuotaService } from "./quotas.js";

export interface SearchRequest {
  collection_id: string;
  query: string;
  top_k?: number;
  collapse_documents?: boolean;
  /** drop hits whose relevance is below this (0..1) */
  min_score?: number;
}

export interface RetrieveRequest {
  collection_id: string;
  query: string;
  top_k?: number;
  max_chunks_per_document?: number;
  context_window?: number;
  max_tokens?: number | null;
  format?: string;
  /** drop matches whose relevance is below this (0..1) */
  min_score?: number;
  /** stop at matches much weaker than the best (calibration.ts RETRIEVE_CUTOFF); default true */
  relative_cutoff?: boolean;
}

/**
 * Deployment defaults overridden by the collection's `settings`: fusion, lexical_weight,
 * vector_weight, normalization, candidate_depth, field_weights {title, headings, body} and
 * document_evidence (weight; off by default).
 */
export function settingsFor(base: EngineSettings, collectionSettings: Json): EngineSettings {
  const fusion: FusionOptions = { ...base.fusion };
  const s = collectionSettings;
  if (s.fusion === "rrf" || s.fusion === "weighted") fusion.method = s.fusion;
  if (typeof s.lexical_weight === "number") fusion.lexicalWeight = s.lexical_weight;
  if (typeof s.vector_weight === "number") fusion.vectorWeight = s.vector_weight;
  if (s.normalization === "minmax" || s.normalization === "zscore") fusion.normalization = s.normalization;
  const depth = typeof s.candidate_depth === "number" && Number.isInteger(s.candidate_depth) && s.candidate_depth >= 1 ? s.candidate_depth : base.depth;
  const lexicalWeights = { ...base.lexicalWeights };
  const fw = s.field_weights;
  if (fw && typeof fw === "object" && !Array.isArray(fw)) {
    const w = fw as Record<string, unknown>;
    for (const f of ["title", "headings", "body"] as const) if (typeof w[f] === "number" && (w[f] as number) >= 0) lexicalWeights[f] = w[f] as number;
  }
  const documentEvidence =
    typeof s.document_evidence === "number" && s.document_evidence >= 0
      ? { weight: s.document_evidence, others: DOCUMENT_EVIDENCE_OTHERS }
      : base.documentEvidence;
  return { ...base, fusion, depth, lexicalWeights, documentEvidence };
}

/** An engine setting written as collection `settings` (every key settingsFor reads). */
export function collectionSettingsOf(e: EngineSettings) {
  return {
    fusion: e.fusion.method,
    lexical_weight: e.fusion.lexicalWeight,
    vector_weight: e.fusion.vectorWeight,
    normalization: e.fusion.normalization ?? "zscore",
    candidate_depth: e.depth,
    field_weights: { title: e.lexicalWeights.title, headings: e.lexicalWeights.headings, body: e.lexicalWeights.body },
  };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function createSearchService(deps: {
  store: Store;
  engine: Engine;
  quotas: QuotaService;
  settings?: EngineSettings;
}) {
  const base = deps.settings ?? DEFAULT_ENGINE_SETTINGS;

  async function collection(p: Principal, id: string): Promise<CollectionScope> {
    const c = await deps.store.content.collectionScope(tenantOf(p).id, id);
    if (!c) throw notFound("Collection", id);
    return c;
  }

  async function rank(p: Principal, c: CollectionScope, query: string, mode: RetrievalMode = "hybrid") {
    const tenant = tenantOf(p);
    return deps.engine.rank(tenant.id, c.data_source_ids, query, settingsFor(base, c.settings), mode);
  }

  return {
    /** ranking without quota or shaping: for benchmark runs and the bench command */
    rank,
    collection,
    /** the engine setting a collection searches with */
    settingsOf: (c: CollectionScope): EngineSettings => settingsFor(base, c.settings),
    /** candidate lists for tuning (one embedding per query; see search/tuning.ts) */
    candidates: (p: Principal, c: CollectionScope, query: string, opts: { depth: number; lexicalWeights: LexicalWeights[] }) =>
      deps.engine.candidates(tenantOf(p).id, c.data_source_ids, query, opts),

    async search(p: Principal, req: SearchRequest, opts: { mode?: RetrievalMode; countQuery?: boolean } = {}) {
      const started = performance.now();
      const c = await collection(p, req.collection_id);
      if (opts.countQuery !== false) await deps.quotas.consumeQueries(tenantOf(p), 1);
      const topK = req.top_k ?? 10;
      const tenantId = tenantOf(p).id;
      const result = await deps.engine.rankIds(tenantId, c.data_source_ids, req.query, settingsFor(base, c.settings), opts.mode);
      const minScore = req.min_score ?? 0;
      let ranked = minScore > 0 ? result.ranked.filter((r) => round(r.score) >= minScore) : result.ranked;
      if (req.collapse_documents ?? true) {
        const seen = new Set<string>();
        ranked = ranked.filter((r) => (seen.has(r.documentId) ? false : (seen.add(r.documentId), true)));
      }
      // only the hits returned are read in full
      const top = await deps.engine.hydrate(tenantId, ranked.slice(0, topK));
      const terms = queryTerms(req.query);
      return {
        query: req.query,
        took_ms: Math.round(performance.now() - started),
        total: ranked.length,
        results: top.map((r) => searchHit(r.chunk, round(r.score), terms)),
        mode: result.mode,
      };
    },

    async retrieve(p: Principal, req: RetrieveRequest) {
      const started = performance.now();
      const tenant = tenantOf(p);
      const c = await collection(p, req.collection_id);
      await deps.quotas.consumeQueries(tenant, 1);
      const result = await deps.engine.rankIds(tenant.id, c.data_source_ids, req.query, settingsFor(base, c.settings));
      const minScore = req.min_score ?? 0;
      let ranked = result.ranked.map((r) => ({ ...r, score: round(r.score) }));
      if (minScore > 0) ranked = ranked.filter((m) => m.score >= minScore);
      // relevance is non-increasing down the ranked list, so the cutoff keeps a prefix of it
      if (req.relative_cutoff ?? true) ranked = relativeCutoff(ranked);
      const options = {
        topK: req.top_k ?? 8,
        maxChunksPerDocument: req.max_chunks_per_document ?? 3,
        contextWindow: req.context_window ?? 0,
        maxTokens: req.max_tokens ?? null,
        format: (req.format === "text" ? "text" : "json") as "json" | "text",
      };
      // The matches that become contexts are chosen on ids and scores; only they are read in full.
      const chosen = await deps.engine.hydrate(tenant.id, selectMatches(ranked, options));
      const matches: ScoredChunk[] = chosen.map((r) => ({ ...chunkRecord(r.chunk), score: round(r.score) }));
      // Neighbours are fetched up front, all ranges in one store call, so assembly stays
      // synchronous and storage-free.
      const ranges = neighbourRanges(matches, options.contextWindow);
      const neighbours = new Map<string, ChunkRecord[]>();
      for (const row of ranges.length > 0 ? await deps.store.content.chunksInRanges(tenant.id, ranges) : []) {
        const list = neighbours.get(row.document_id) ?? [];
        list.push(chunkRecord(row));
        neighbours.set(row.document_id, list);
      }
      const assembled = assembleRetrieve(matches, neighbours, options);
      return { query: req.query, took_ms: Math.round(performance.now() - started), ...assembled };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
