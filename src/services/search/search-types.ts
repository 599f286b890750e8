// Shared shapes of the search service: the request bodies, the dependencies, and how a
// collection's `settings` become an engine setting (and back, for tuning). Kept apart from
// search.ts so the operations (search-requests.ts) and the binding (search.ts) import it
// without importing each other.
import type { Store } from "../../store/types.js";
import type { ChunkSearch, CollectionCatalog } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import type { Engine, EngineSettings } from "../../search/engine.js";
import { DEFAULT_ENGINE_SETTINGS, DOCUMENT_EVIDENCE_OTHERS } from "../../search/engine.js";
import type { FusionOptions } from "../../search/fusion.js";
import { FEATURES, type CalibrationMode, type OwnCalibration } from "../../search/calibration.js";
import type { QuotaService } from "../tenants/quotas.js";
import { synonymTableOf } from "../collections/synonyms.js";
import { activeAdaptationId } from "./query-models.js";

/** What ranking needs of a collection. */
export interface CollectionScope {
  settings: Json;
  data_source_ids: string[];
  /** the collection's language (null or absent: English) */
  language?: string | null;
}

/** What /search and /retrieve share beyond the query (issue 28): the blend, explanations, a filter. */
export interface SearchControls {
  /** 0 = lexical only, 1 = vector only; absent: the collection's fusion (search-blend.ts) */
  hybrid?: { semantic_ratio: number };
  /** add each hit's explanation (search/explain.ts) */
  explain?: boolean;
  /** a filter as sent (search/filter/parse.ts validates it) */
  filter?: unknown;
  /** false turns typo tolerance off for this request (it cannot turn on what the collection turned off) */
  typo_tolerance?: boolean;
  /** the last word is a prefix (search-as-you-type) */
  prefix?: boolean;
}

export interface SearchRequest extends SearchControls {
  collection_id: string;
  query: string;
  top_k?: number;
  collapse_documents?: boolean;
  /** drop hits whose relevance is below this (0..1) */
  min_score?: number;
  /** fields to count the matched documents by (search/facet-counts.ts) */
  facets?: string[];
}

export interface RetrieveRequest extends SearchControls {
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

export interface SearchServiceDeps {
  store: { content: CollectionCatalog & ChunkSearch };
  engine: Engine;
  quotas: QuotaService;
  /** the deployment's defaults (DEFAULT_ENGINE_SETTINGS when absent) */
  settings?: EngineSettings;
}

/** The dependencies with the deployment defaults resolved, as the operations take them. */
export interface SearchDeps extends SearchServiceDeps {
  settings: EngineSettings;
}

export function searchDeps(deps: SearchServiceDeps): SearchDeps {
  return { ...deps, settings: deps.settings ?? DEFAULT_ENGINE_SETTINGS };
}

/** Relevance as answered: six decimals, so a min_score compares with what the caller sees. */
export const roundScore = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Deployment defaults overridden by the collection's `settings`: fusion, lexical_weight,
 * vector_weight, normalization, candidate_depth, field_weights {title, headings, body},
 * document_evidence (weight; off by default), relevance_calibration (the collection's own),
 * synonyms, typo_tolerance (on unless false) and model_adaptation (the adapted query model, unless enabled: false).
 */
export function settingsFor(base: EngineSettings, collectionSettings: Json, language?: string | null): EngineSettings {
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
  const calibration = ownCalibrationOf(s.relevance_calibration) ?? base.calibration;
  const synonyms = synonymTableOf(s.synonyms);
  const typoTolerance = s.typo_tolerance === false ? false : base.typoTolerance;
  const queryModel = activeAdaptationId(s);
  return {
    ...base,
    fusion,
    depth,
    lexicalWeights,
    documentEvidence,
    ...(calibration ? { calibration } : {}),
    ...(synonyms ? { synonyms } : {}),
    ...(typoTolerance !== undefined ? { typoTolerance } : {}),
    ...(language ? { language } : {}),
    ...(queryModel ? { queryModel } : {}),
  };
}

const CALIBRATION_MODES: readonly string[] = ["hybrid", "lexical", "vector"] satisfies CalibrationMode[];

/**
 * settings.relevance_calibration ({mode, intercept, weights: {feature: weight}}, checked by the
 * API's schema) as the engine's model; anything else (a hand-edited row) is ignored.
 */
function ownCalibrationOf(v: Json[string]): OwnCalibration | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const { mode, intercept, weights, retrieve_floor } = v as Record<string, unknown>;
  if (typeof mode !== "string" || !CALIBRATION_MODES.includes(mode) || typeof intercept !== "number") return undefined;
  if (!weights || typeof weights !== "object" || Array.isArray(weights)) return undefined;
  const w = weights as Record<string, unknown>;
  if (!FEATURES.every((f) => typeof w[f] === "number")) return undefined;
  const own: OwnCalibration = { mode: mode as CalibrationMode, model: { intercept, weights: FEATURES.map((f) => w[f] as number) } };
  return typeof retrieve_floor === "number" ? { ...own, retrieveFloor: retrieve_floor } : own;
}

/** A collection's own calibration as its `settings.relevance_calibration`. */
export function calibrationSettingOf(c: OwnCalibration) {
  const weights = Object.fromEntries(FEATURES.map((f, i) => [f, c.model.weights[i] ?? 0]));
  return { mode: c.mode, intercept: c.model.intercept, weights, ...(c.retrieveFloor !== undefined ? { retrieve_floor: c.retrieveFloor } : {}) };
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
