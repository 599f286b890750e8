// The hybrid engine: BM25 candidates and kNN candidates over the collection's sources, fused into
// one ranked list of chunks. Both retrievers filter by tenant and source inside their index
// queries. Without a ready model the engine answers lexically (mode "lexical").
import type { ChunkHit } from "../store/content-types.js";
import type { ChunkSearch } from "../store/content-store.js";
import type { ExpansionRule, LexicalQuery, LexicalWeights, ParsedQuery } from "./lexical/types.js";
import type { Embedder, EmbeddingProfile } from "../embed/types.js";
import { lexicalQueryWithRules } from "./lexical/query-rules.js";
import type { SynonymTable } from "./lexical/synonyms.js";
import { queryAnalyzer } from "./lexical/languages.js";
import { fuse, type Candidate, type FusedHit, type FusionOptions, DEFAULT_FUSION_OPTIONS } from "./fusion.js";
import { calibrate, calibrationFusion, modelsWith, sameFusion, type ListFacts, type OwnCalibration } from "./calibration.js";
import { rulesOf, type RankedScores } from "./explain.js";
import type { SearchFilter } from "./filter/types.js";

export interface EngineSettings {
  fusion: FusionOptions;
  lexicalWeights: LexicalWeights;
  /** candidates taken from each retriever */
  depth: number;
  /**
   * Document evidence: each chunk's fused score gains `weight` x the sum of the fused scores (above
   * the candidates' mean) of up to `others` more chunks of its document in the candidate lists, so
   * a document several good candidates come from ranks above one with a single lucky chunk.
   * Absent or weight 0 = off.
   */
  documentEvidence?: { weight: number; others: number };
  /** the collection's own calibration (fitted on its benchmark suite by tuning); absent: the shipped one */
  calibration?: OwnCalibration;
  /** the collection's synonyms (settings.synonyms), applied to the lexical half's query */
  synonyms?: SynonymTable;
  /** typo tolerance in the lexical half (search/lexical/typos.ts); absent = on */
  typoTolerance?: boolean;
  /** the query's last word is a prefix (search-as-you-type; a request's `prefix`); absent = off */
  prefix?: boolean;
  /** the collection's language (lexical/languages.ts): its queries are analysed as its chunks were; absent: English */
  language?: string;
  /** the collection's adapted query model (settings.model_adaptation, issue 27 item 4); absent: the profile's */
  queryModel?: string;
}

/** other chunks of a document that count as its evidence (engine setting documentEvidence) */
export const DOCUMENT_EVIDENCE_OTHERS = 10;

// Title weighted 2x measured +0.007 nDCG@10 on SciFact (BM25 only); see docs/benchmarks.md.
export const DEFAULT_LEXICAL_WEIGHTS: LexicalWeights = { title: 2, headings: 1.5, body: 1 };

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  fusion: { ...DEFAULT_FUSION_OPTIONS },
  lexicalWeights: DEFAULT_LEXICAL_WEIGHTS,
  depth: 100,
  // Off by default, on per collection (settings.document_evidence): weight 0.2 gave the
  // documentation question set +0.022 nDCG@10 in hybrid but cost SciFact 0.004 (0.7075 -> 0.7036
  // with the default model); docs/decisions.md "Relevance (issue 16 item 2)"
  documentEvidence: { weight: 0, others: DOCUMENT_EVIDENCE_OTHERS },
};

/** A ranked chunk: its place in each list and fused score (explain.ts RankedScores) and its relevance. */
export interface RankedChunk extends RankedScores {
  chunk: ChunkHit;
  /** calibrated relevance in [0, 1] (calibration.ts), non-increasing down the list */
  score: number;
}

export interface EngineResult {
  mode: "hybrid" | "lexical" | "vector";
  ranked: RankedChunk[];
  /** the lexical query's terms and phrases (calibration's lex_mean; absent without one) */
  queryTerms?: number;
}

export type RetrievalMode = "hybrid" | "lexical" | "vector";

/** A ranked chunk before its text is read: its id, document and scores (RankedChunk's fields). */
export type RankedId = Omit<RankedChunk, "chunk"> & { id: string; documentId: string };

export interface RankedIds {
  mode: EngineResult["mode"];
  ranked: RankedId[];
  /** the query as parsed for ranking, for highlights (snippet.ts highlightTerms) */
  parsed: ParsedQuery;
  /** the lexical query as the store ran it, expansions included (null: none ran), for facets */
  lexical: LexicalQuery | null;
}

/**
 * Fusion of a query's candidate lists under one setting, exactly as rank() orders them: each list
 * cut to `settings.depth` (a list fetched deeper and cut is the list fetched at that depth), one
 * list alone at weight 1. Also returns what calibration needs.
 */
export function fuseCandidates(
  lexical: readonly Candidate[],
  vector: readonly Candidate[],
  answered: RetrievalMode,
  settings: EngineSettings,
  queryTerms?: number,
): {
  fused: FusedHit[];
  fusion: FusionOptions;
  lexicalCandidates: Candidate[];
  vectorCandidates: Candidate[];
  lists: { lexicalComplete: boolean } & ListFacts;
} {
  const useLexical = answered !== "vector";
  const useVectors = answered !== "lexical";
  const fusion =
    answered === "hybrid" ? settings.fusion : { ...settings.fusion, lexicalWeight: useLexical ? 1 : 0, vectorWeight: useVectors ? 1 : 0 };
  const lexicalCandidates = lexical.length > settings.depth ? lexical.slice(0, settings.depth) : [...lexical];
  const vectorCandidates = vector.length > settings.depth ? vector.slice(0, settings.depth) : [...vector];
  // fewer than asked: every lexical match is in the list (exact matches then come first); every
  // chunk of the collection is in the vector list (calibration's `small` feature)
  const lists = { lexicalComplete: lexical.length < settings.depth, vectorComplete: useVectors && vector.length < settings.depth, queryTerms };
  return { fused: fuse(lexicalCandidates, vectorCandidates, fusion, lists), fusion, lexicalCandidates, vectorCandidates, lists };
}

/** Terms and phrases of a lexical query, as calibration counts them (lex_mean). */
export const termsOf = (q: LexicalQuery | null | undefined): number | undefined => (q ? q.terms.length + q.phrases.length : undefined);

/** A query's candidate lists for tuning: one lexical list per weight set, one vector list. */
export interface TuningCandidates {
  mode: RetrievalMode;
  /** lexical candidates (best first) for each weight set, in the order asked */
  lexical: Candidate[][];
  vector: Candidate[];
  /** document id of every candidate chunk */
  documentOf: Map<string, string>;
  /** the lexical query's terms and phrases (calibration's lex_mean) */
  queryTerms?: number;
}

/**
 * Adds document evidence to a fused list (EngineSettings.documentEvidence) and re-sorts it: each
 * chunk gains `weight` x the sum over the next `others` best chunks of its document of their fused
 * score above the list's mean (nothing for those below it). The best chunk of a document stays
 * first among its chunks.
 */
export function withDocumentEvidence(
  fused: readonly FusedHit[],
  documentOf: (chunkId: string) => string | undefined,
  o: { weight: number; others: number },
): FusedHit[] {
  if (fused.length === 0) return [];
  // support is what a chunk scores above the candidates' mean: a document's many weak matches
  // (long pages match every common word somewhere) add nothing
  const mean = fused.reduce((a, f) => a + f.score, 0) / fused.length;
  const byDoc = new Map<string, number[]>();
  for (const f of fused) {
    const d = documentOf(f.id);
    if (d === undefined) continue;
    let a = byDoc.get(d);
    if (!a) byDoc.set(d, (a = []));
    a.push(f.score - mean);
  }
  const bonus = new Map<string, number>();
  for (const [d, scores] of byDoc) {
    // the list is sorted, so scores[0] is the document's best chunk; the others are its support
    let sum = 0;
    for (let i = 1; i <= o.others && i < scores.length; i++) sum += Math.max(0, scores[i]!);
    bonus.set(d, o.weight * sum);
  }
  return fused
    .map((f, i) => {
      const d = documentOf(f.id);
      return { f: { ...f, score: f.score + (d === undefined ? 0 : bonus.get(d)!) }, i };
    })
    .sort((a, b) => b.f.score - a.f.score || a.i - b.i)
    .map((x) => x.f);
}

export interface EngineDeps {
  content: ChunkSearch;
  profile: EmbeddingProfile;
  embedder: Embedder | null;
  /**
   * A query embedded with a collection's adapted query model (services/search/query-models.ts);
   * null when that model cannot be used, and the profile's model embeds it instead.
   */
  adaptedQuery?: (tenantId: string, queryModel: string, text: string) => Promise<Float32Array | null>;
}

/** the model is ready to embed queries */
export const vectorsAvailable = (deps: EngineDeps): boolean => deps.embedder?.status().state === "ready";

const asCandidates = (hits: readonly { chunkId: string; score: number }[]): Candidate[] => hits.map((c) => ({ id: c.chunkId, score: c.score }));

/**
 * The query's nearest chunks, started at once and awaited last: the embedding runs in a worker
 * thread while SQLite answers BM25.
 */
function startVectorSearch(deps: EngineDeps, tenantId: string, sourceIds: string[], query: string, depth: number, filter?: SearchFilter, queryModel?: string): Promise<Candidate[]> {
  const adapted = queryModel && deps.adaptedQuery ? deps.adaptedQuery(tenantId, queryModel, query) : Promise.resolve(null);
  return adapted
    .then((v) => v ?? deps.embedder!.embedQuery(query))
    .then((v) => deps.content.vectorSearch(deps.profile.index_name!, tenantId, sourceIds, v, depth, filter))
    .then(asCandidates);
}

/**
 * The collection's ranked chunks as ids, documents and scores, without their text: search
 * collapses and cuts this list, then hydrates only the hits it returns (reading the text of 200
 * candidates cost more than the whole rest of a request). A filter restricts both retrievers
 * inside their scans (filter/types.ts), so the lists are the best of the filtered set.
 */
export async function rankIds(
  deps: EngineDeps,
  tenantId: string,
  sourceIds: string[],
  query: string,
  settings: EngineSettings,
  mode: RetrievalMode = "hybrid",
  filter?: SearchFilter,
): Promise<RankedIds> {
  const useLexical = mode !== "vector";
  const useVectors = mode !== "lexical" && vectorsAvailable(deps);
  // the embedding starts first: the query's dictionary reads (typos, prefix) run beside it
  const vectorPromise = useVectors && sourceIds.length > 0 ? startVectorSearch(deps, tenantId, sourceIds, query, settings.depth, filter, settings.queryModel) : Promise.resolve([]);
  const { parsed, lexical: lexicalQuery } = await queryOf(deps, tenantId, query, settings, useLexical && sourceIds.length > 0);
  if (sourceIds.length === 0) return { mode: "hybrid", ranked: [], parsed, lexical: null };
  const lexical =
    useLexical && lexicalQuery ? await deps.content.lexicalSearch(tenantId, sourceIds, lexicalQuery, settings.depth, settings.lexicalWeights, filter) : [];
  const vector = await vectorPromise;
  const answered = useVectors ? (useLexical ? "hybrid" : "vector") : "lexical";
  // one list only (a single mode, or no model): that list's scores alone, weight 1 (fuseCandidates)
  const lists = fuseCandidates(asCandidates(lexical), vector, answered, settings, termsOf(lexicalQuery));
  const documents = await deps.content.chunkDocuments(
    tenantId,
    lists.fused.map((f) => f.id),
  );
  const expanded = new Map(lexical.filter((h) => h.rules).map((h) => [h.chunkId, h.rules!]));
  return { mode: answered, ranked: scoredIds(lists, answered, settings, documents, expanded, deps.profile.name), parsed, lexical: useLexical ? lexicalQuery : null };
}

/**
 * The query parsed and analysed with the collection's rules: synonyms always (they need no
 * store), typo tolerance and the prefix through the tenant's term dictionary when the lexical
 * half runs.
 */
function queryOf(deps: EngineDeps, tenantId: string, query: string, settings: EngineSettings, lexical: boolean) {
  const rules = { ...(settings.synonyms ? { synonyms: settings.synonyms } : {}), typos: lexical && settings.typoTolerance !== false, prefix: lexical && settings.prefix === true };
  return lexicalQueryWithRules(query, queryAnalyzer(settings.language), rules, (l) => deps.content.lexicalTerms(tenantId, l));
}

/**
 * A query's fused list with document evidence applied, and the relevance in [0, 1] of each of its
 * chunks (calibration.ts). A collection ranked with its own fusion settings is calibrated on the
 * fusion the calibration was fitted with, of the same lists. Document evidence goes into the
 * fused score calibration reads too: a chunk promoted by its page's support is scored with that
 * support. (Scored without it, the promoted chunk's lower estimate capped every chunk it passed:
 * on the documentation question set the mean relevance at rank 1 was 0.35 where 80% of the hits
 * are relevant; with it 0.78, Brier score 0.64 -> 0.42; docs/decisions.md, "Relevance".)
 */
export function calibratedList(
  lists: ReturnType<typeof fuseCandidates>,
  answered: RetrievalMode,
  settings: EngineSettings,
  documentOf: (chunkId: string) => string | undefined,
  profile?: string,
): { fused: FusedHit[]; relevance: number[] } {
  const { fused, fusedOf } = calibrationInputs(lists, answered, settings, documentOf);
  return { fused, relevance: calibrate(fused, answered, fusedOf, modelsWith(settings.calibration, profile), lists.lists) };
}

/**
 * What calibration reads of a query's lists: the fused list with document evidence applied and,
 * when the collection fuses otherwise than the reference fusion, each chunk's reference fused
 * score. Serving (calibratedList) and fitting a collection's own calibration (tuning) share it,
 * so a fitted model sees the features it is later applied to.
 */
export function calibrationInputs(
  lists: ReturnType<typeof fuseCandidates>,
  answered: RetrievalMode,
  settings: EngineSettings,
  documentOf: (chunkId: string) => string | undefined,
): { fused: FusedHit[]; fusedOf: Map<string, number> | undefined } {
  const evidence = settings.documentEvidence;
  const withEvidence = (list: FusedHit[]) => (evidence !== undefined && evidence.weight > 0 && evidence.others > 0 ? withDocumentEvidence(list, documentOf, evidence) : list);
  const fused = withEvidence(lists.fused);
  const reference = calibrationFusion(answered);
  const fusedOf = sameFusion(lists.fusion, reference)
    ? undefined
    : new Map(withEvidence(fuse(lists.lexicalCandidates, lists.vectorCandidates, reference, lists.lists)).map((f) => [f.id, f.score]));
  return { fused, fusedOf };
}

/**
 * The fused list with document evidence applied and calibrated relevance; chunks without a
 * document (deleted since the index answered) are left out.
 */
function scoredIds(
  lists: ReturnType<typeof fuseCandidates>,
  answered: RetrievalMode,
  settings: EngineSettings,
  documents: Map<string, string>,
  expanded: ReadonlyMap<string, ExpansionRule[]>,
  profile: string,
): RankedId[] {
  const { fused, relevance } = calibratedList(lists, answered, settings, (id) => documents.get(id), profile);
  // the fused scores before document evidence, to tell which hits it raised (explain.ts)
  const before = new Map(lists.fused.map((f) => [f.id, f.score]));
  // fusion bounds a complete lexical list only when it mixes normalised scores of both lists
  const bounded = answered === "hybrid" && lists.fusion.method === "weighted";
  const ranked: RankedId[] = [];
  fused.forEach((f, i) => {
    const documentId = documents.get(f.id);
    if (documentId === undefined) return;
    const { lexicalRank, vectorRank, lexicalScore, vectorScore } = f;
    const rules = rulesOf(f, { lexicalComplete: lists.lists.lexicalComplete, hybrid: bounded, scoreBeforeEvidence: before.get(f.id), expansions: expanded.get(f.id) });
    ranked.push({ id: f.id, documentId, score: relevance[i]!, fusedScore: f.score, lexicalRank, vectorRank, lexicalScore, vectorScore, rules });
  });
  return ranked;
}

/** the chunks of ranked ids, in the same order (ids deleted meanwhile are left out) */
export async function hydrate(deps: EngineDeps, tenantId: string, ranked: readonly RankedId[]): Promise<RankedChunk[]> {
  const chunks = await deps.content.hydrateChunks(
    tenantId,
    ranked.map((r) => r.id),
  );
  const out: RankedChunk[] = [];
  for (const { id, documentId: _documentId, ...scores } of ranked) {
    const chunk = chunks.get(id); // the chunk carries its document itself
    if (chunk) out.push({ chunk, ...scores });
  }
  return out;
}

/**
 * For tuning (services/tuning.ts): the query embedded once and searched once at `depth`, and one
 * BM25 list per weight set, so many settings can be ranked from the same lists in memory.
 */
export async function tuningCandidates(
  deps: EngineDeps,
  tenantId: string,
  sourceIds: string[],
  query: string,
  opts: { depth: number; lexicalWeights: LexicalWeights[]; synonyms?: SynonymTable; typoTolerance?: boolean; language?: string; queryModel?: string },
): Promise<TuningCandidates> {
  const useVectors = vectorsAvailable(deps);
  const mode: RetrievalMode = useVectors ? "hybrid" : "lexical";
  if (sourceIds.length === 0) return { mode, lexical: opts.lexicalWeights.map(() => []), vector: [], documentOf: new Map() };
  const vectorPromise = useVectors ? startVectorSearch(deps, tenantId, sourceIds, query, opts.depth, undefined, opts.queryModel) : Promise.resolve([]);
  const lexicalQuery = (await queryOf(deps, tenantId, query, { ...DEFAULT_ENGINE_SETTINGS, ...opts, lexicalWeights: DEFAULT_LEXICAL_WEIGHTS }, true)).lexical;
  const lexical: Candidate[][] = [];
  for (const w of opts.lexicalWeights) {
    lexical.push(lexicalQuery ? asCandidates(await deps.content.lexicalSearch(tenantId, sourceIds, lexicalQuery, opts.depth, w)) : []);
  }
  const vector = await vectorPromise;
  const ids = new Set<string>([...vector.map((c) => c.id), ...lexical.flat().map((c) => c.id)]);
  // ids and documents only: the tuner never reads a chunk's text
  const documentOf = await deps.content.chunkDocuments(tenantId, [...ids]);
  return { mode, lexical, vector, documentOf, queryTerms: termsOf(lexicalQuery) };
}

/** The engine's operations bound to its dependencies. */
export function createEngine(deps: EngineDeps) {
  return {
    vectorsAvailable: () => vectorsAvailable(deps),
    rankIds: (tenantId: string, sourceIds: string[], query: string, settings: EngineSettings, mode: RetrievalMode = "hybrid", filter?: SearchFilter) =>
      rankIds(deps, tenantId, sourceIds, query, settings, mode, filter),
    hydrate: (tenantId: string, ranked: readonly RankedId[]) => hydrate(deps, tenantId, ranked),
    /** rankIds and hydrate of the whole list */
    async rank(tenantId: string, sourceIds: string[], query: string, settings: EngineSettings, mode: RetrievalMode = "hybrid"): Promise<EngineResult> {
      const r = await rankIds(deps, tenantId, sourceIds, query, settings, mode);
      return { mode: r.mode, ranked: await hydrate(deps, tenantId, r.ranked), queryTerms: termsOf(r.lexical) };
    },
    candidates: (
      tenantId: string,
      sourceIds: string[],
      query: string,
      opts: { depth: number; lexicalWeights: LexicalWeights[]; synonyms?: SynonymTable; typoTolerance?: boolean; language?: string; queryModel?: string },
    ) =>
      tuningCandidates(deps, tenantId, sourceIds, query, opts),
  };
}

export type Engine = ReturnType<typeof createEngine>;
