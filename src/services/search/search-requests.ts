// The search service's operations, each taking its dependencies first (search.ts binds them):
// resolving a collection inside the tenant, ranking, POST /search (hits with snippets) and
// POST /retrieve (contexts with neighbours, citations and a token budget).
import type { LexicalWeights } from "../../search/lexical/types.js";
import type { RankedChunk, RankedId, RetrievalMode } from "../../search/engine.js";
import { assembleRetrieve, neighbourRanges, selectMatches, type ChunkRecord, type RetrieveOptions, type ScoredChunk } from "../../search/retrieve-assembly.js";
import { cutoffFor, relativeCutoff } from "../../search/calibration.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { notFound, ValidationError } from "../errors.js";
import { FilterInvalid, parseFilter } from "../../search/filter/parse.js";
import { parseFacets } from "../../search/filter/facets.js";
import { facetCounts } from "../../search/facet-counts.js";
import type { SearchFilter } from "../../search/filter/types.js";
import { chunkRecord, searchHit } from "./chunk-hits.js";
import { highlightTerms } from "../../search/snippet.js";
import { roundScore, settingsFor, type CollectionScope, type RetrieveRequest, type SearchControls, type SearchDeps, type SearchRequest } from "./search-types.js";
import { blendFor } from "./search-blend.js";
import { explanationOf } from "../../search/explain.js";
import { expandedWords } from "../../search/lexical/query-rules.js";
import { DEFAULT_LANGUAGE, documentAnalyzer, openingOf } from "../../search/lexical/languages.js";

export async function collectionOf(deps: SearchDeps, p: Principal, id: string): Promise<CollectionScope> {
  const c = await deps.store.content.collectionScope(tenantOf(p).id, id);
  if (!c) throw notFound("Collection", id);
  return c;
}

/**
 * The collection of a counted query with its admission: the tenant as it is now, the scope and the
 * quota in one store call (quotas.admitSearch), so the principal's tenant row may come from the
 * key cache. Uncounted (bench, tuning): the collection alone.
 */
async function admitted(deps: SearchDeps, p: Principal, collectionId: string, count: boolean): Promise<{ p: Principal; c: CollectionScope }> {
  if (!count) return { p, c: await collectionOf(deps, p, collectionId) };
  const a = await deps.quotas.admitSearch(tenantOf(p), collectionId);
  return { p: { ...p, tenant: a.tenant }, c: a.scope };
}

/** Ranking without quota or shaping: for benchmark runs and the bench command. */
export function rankIn(deps: SearchDeps, p: Principal, c: CollectionScope, query: string, mode: RetrievalMode = "hybrid") {
  return deps.engine.rank(tenantOf(p).id, c.data_source_ids, query, settingsFor(deps.settings, c.settings, c.language), mode);
}

/** Candidate lists for tuning (one embedding per query; see search/tuning.ts). */
export function candidatesIn(deps: SearchDeps, p: Principal, c: CollectionScope, query: string, opts: { depth: number; lexicalWeights: LexicalWeights[] }) {
  const { synonyms, typoTolerance, language, queryModel } = settingsFor(deps.settings, c.settings, c.language);
  const rules = { ...(synonyms ? { synonyms } : {}), ...(typoTolerance !== undefined ? { typoTolerance } : {}), ...(language ? { language } : {}), ...(queryModel ? { queryModel } : {}) };
  return deps.engine.candidates(tenantOf(p).id, c.data_source_ids, query, { ...opts, ...rules });
}

/** The best chunk of each document only, in rank order. */
function firstPerDocument(ranked: RankedId[]): RankedId[] {
  const seen = new Set<string>();
  return ranked.filter((r) => (seen.has(r.documentId) ? false : (seen.add(r.documentId), true)));
}

/**
 * How a request ranks: the collection's settings under the request's blend (a mode forced by the
 * caller, as benchmark runs do, wins over the blend).
 */
function rankingOf(deps: SearchDeps, c: CollectionScope, req: SearchControls, mode?: RetrievalMode) {
  const blend = blendFor(settingsFor(deps.settings, c.settings, c.language), req.hybrid?.semantic_ratio, deps.engine.vectorsAvailable());
  const settings = {
    ...blend.settings,
    ...(req.typo_tolerance === false ? { typoTolerance: false } : {}),
    ...(req.prefix === true ? { prefix: true } : {}),
  };
  return { settings, mode: mode ?? blend.mode };
}

/** A part of the body read by a filter-core parser; a 422 naming each bad part (loc body.<field>...). */
function readBody<T>(field: "filter" | "facets", read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof FilterInvalid)) throw err;
    throw new ValidationError(err.issues.map((i) => ({ type: `${field}_invalid`, loc: ["body", field, ...i.path], msg: i.msg, input: i.input })));
  }
}

/** The request's filter as the stores take it. */
const filterOf = (req: SearchControls): SearchFilter | undefined => (req.filter === undefined ? undefined : readBody("filter", () => parseFilter(req.filter)));

export async function searchChunks(deps: SearchDeps, caller: Principal, req: SearchRequest, opts: { mode?: RetrievalMode; countQuery?: boolean } = {}) {
  const started = performance.now();
  // the body is read first: a request refused with 422 is not counted
  const filter = filterOf(req);
  const facets = req.facets && readBody("facets", () => parseFacets(req.facets!));
  const { p, c } = await admitted(deps, caller, req.collection_id, opts.countQuery !== false);
  const ranking = rankingOf(deps, c, req, opts.mode);
  const topK = req.top_k ?? 10;
  const tenantId = tenantOf(p).id;
  const result = await deps.engine.rankIds(tenantId, c.data_source_ids, req.query, ranking.settings, ranking.mode, filter);
  const minScore = req.min_score ?? 0;
  let ranked = minScore > 0 ? result.ranked.filter((r) => roundScore(r.score) >= minScore) : result.ranked;
  if (req.collapse_documents ?? true) ranked = firstPerDocument(ranked);
  // only the hits returned are read in full
  const top = await deps.engine.hydrate(tenantId, ranked.slice(0, topK));
  const terms = highlightTerms(result.parsed);
  const documentIds = [...new Set(ranked.map((r) => r.documentId))];
  const counts = facets && (await facetCounts(deps.store.content, tenantId, c.data_source_ids, result.lexical, { documentIds, ...(filter ? { filter } : {}) }, facets));
  return {
    query: req.query,
    took_ms: Math.round(performance.now() - started),
    total: ranked.length,
    results: top.map((r) => {
      // highlights match as the hit was indexed: its collection's language, or under "auto" the one detected in its text
      const analyzer = documentAnalyzer(ranking.settings.language ?? DEFAULT_LANGUAGE, () => openingOf(r.chunk.title, [r.chunk]));
      return {
        // words a typo alternative or a completion matched are highlighted too
        ...searchHit(r.chunk, roundScore(r.score), [...terms, ...expandedWords(r.chunk.text, result.lexical, analyzer)], analyzer),
        ...(req.explain ? { explain: explanationOf(r) } : {}),
      };
    }),
    mode: result.mode,
    ...(counts ? { facets: counts } : {}),
  };
}

function retrieveOptions(req: RetrieveRequest): RetrieveOptions {
  return {
    topK: req.top_k ?? 8,
    maxChunksPerDocument: req.max_chunks_per_document ?? 3,
    contextWindow: req.context_window ?? 0,
    maxTokens: req.max_tokens ?? null,
    format: req.format === "text" ? "text" : "json",
  };
}

/** The ranked ids /retrieve may use: rounded scores, above min_score, within the relative cutoff. */
function retrievable(ranked: RankedId[], req: RetrieveRequest, cutoff: { ratio: number; floor: number }): RankedId[] {
  const minScore = req.min_score ?? 0;
  let kept = ranked.map((r) => ({ ...r, score: roundScore(r.score) }));
  if (minScore > 0) kept = kept.filter((m) => m.score >= minScore);
  // relevance is non-increasing down the ranked list, so the cutoff keeps a prefix of it
  if (req.relative_cutoff ?? true) kept = relativeCutoff(kept, cutoff);
  return kept;
}

// Neighbours are fetched up front, all ranges in one store call, so assembly stays synchronous
// and storage-free.
async function neighboursOf(deps: SearchDeps, tenantId: string, matches: ScoredChunk[], contextWindow: number): Promise<Map<string, ChunkRecord[]>> {
  const ranges = neighbourRanges(matches, contextWindow);
  const neighbours = new Map<string, ChunkRecord[]>();
  for (const row of ranges.length > 0 ? await deps.store.content.chunksInRanges(tenantId, ranges) : []) {
    const list = neighbours.get(row.document_id) ?? [];
    list.push(chunkRecord(row));
    neighbours.set(row.document_id, list);
  }
  return neighbours;
}

export async function retrieveContexts(deps: SearchDeps, caller: Principal, req: RetrieveRequest) {
  const started = performance.now();
  const filter = filterOf(req);
  const { p, c } = await admitted(deps, caller, req.collection_id, true);
  const tenant = tenantOf(p);
  const { settings, mode } = rankingOf(deps, c, req);
  const result = await deps.engine.rankIds(tenant.id, c.data_source_ids, req.query, settings, mode, filter);
  const options = retrieveOptions(req);
  // The matches that become contexts are chosen on ids and scores; only they are read in full.
  const chosen = await deps.engine.hydrate(tenant.id, selectMatches(retrievable(result.ranked, req, cutoffFor(settings.calibration, result.mode)), options));
  const matches: ScoredChunk[] = chosen.map((r) => ({ ...chunkRecord(r.chunk), score: roundScore(r.score) }));
  const neighbours = await neighboursOf(deps, tenant.id, matches, options.contextWindow);
  const assembled = assembleRetrieve(matches, neighbours, options);
  const contexts = req.explain ? withExplanations(assembled.contexts, chosen) : assembled.contexts;
  return { query: req.query, took_ms: Math.round(performance.now() - started), ...assembled, contexts, mode: result.mode };
}

/** Each matched context with its explanation; a neighbour added by context_window has none (null). */
function withExplanations<T extends { id: string; expanded: boolean }>(contexts: T[], chosen: RankedChunk[]) {
  const byId = new Map(chosen.map((r) => [chunkRecord(r.chunk).id, explanationOf(r)]));
  return contexts.map((x) => ({ ...x, explain: x.expanded ? null : (byId.get(x.id) ?? null) }));
}
