// Retrieval quality of one ranking setup over a BEIR query set, computed independently of the
// benchmark-suite code: the engine ranks chunks (engine.rank, the search service's ranking
// step), the first chunk of each document stands for it (what POST /search's collapse does),
// and the documents' `source` (the BEIR _id) is scored against the qrels with search/metrics.ts.
import type { Runtime } from "../../runtime.js";
import type { CollectionView } from "../../store/content-types.js";
import type { BeirQrels } from "../beir/beir-files.js";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings, type RetrievalMode } from "../../search/engine.js";
import { evaluateRun, type AggregateMetrics } from "../ranking-metrics.js";
import { settingsFor } from "../../services/search/search.js";
import type { BenchOptions } from "./args.js";

export interface ModeSpec {
  label: string;
  mode: RetrievalMode;
  settings: EngineSettings;
}

export interface QualityRow {
  label: string;
  mode: RetrievalMode;
  /** what the engine answered with (lexical when the model is unavailable) */
  answered: string;
  fusion: string;
  ndcg_at_10: number;
  recall_at_10: number;
  mrr_at_10: number;
  queries: number;
  ms: number;
}

/** BEIR ids of the top k documents for a query, as POST /search (collapse_documents) ranks them. */
export async function rankDocuments(
  rt: Runtime,
  tenantId: string,
  collection: CollectionView,
  query: string,
  settings: EngineSettings,
  mode: RetrievalMode,
  k: number,
): Promise<{ ids: string[]; answered: string }> {
  const r = await rt.engine.rank(tenantId, collection.data_source_ids, query, settings, mode);
  const seen = new Set<string>();
  const ids: string[] = [];
  for (const hit of r.ranked) {
    if (seen.has(hit.chunk.document_id)) continue;
    seen.add(hit.chunk.document_id);
    ids.push(hit.chunk.source);
    if (ids.length >= k) break;
  }
  return { ids, answered: r.mode };
}

/** nDCG/recall/MRR@k of one setup over the given queries (qrels grades as given; binary for SciFact). */
export async function evaluateSetup(
  rt: Runtime,
  tenantId: string,
  collectionId: string,
  queries: Map<string, string>,
  qrels: BeirQrels,
  queryIds: string[],
  spec: { mode: RetrievalMode; settings: EngineSettings },
  k = 10,
): Promise<AggregateMetrics & { answered: string }> {
  const collection = await rt.store.content.getCollection(tenantId, collectionId);
  if (!collection) throw new Error(`collection ${collectionId} not found`);
  const run = new Map<string, string[]>();
  const answered = new Set<string>();
  for (const q of queryIds) {
    const r = await rankDocuments(rt, tenantId, collection, queries.get(q)!, spec.settings, spec.mode, k);
    run.set(q, r.ids);
    answered.add(r.answered);
  }
  const judged = new Map(queryIds.filter((q) => qrels.has(q)).map((q) => [q, qrels.get(q)!]));
  return { ...evaluateRun(run, judged, k), answered: answered.size === 1 ? [...answered][0] : "mixed" };
}

/** The settings POST /search uses for this collection (deployment defaults + collection settings). */
export async function searchSettings(rt: Runtime, tenantId: string, collectionId: string): Promise<EngineSettings> {
  const c = await rt.store.content.getCollection(tenantId, collectionId);
  return settingsFor(DEFAULT_ENGINE_SETTINGS, c?.settings ?? {});
}

export function describeFusion(s: EngineSettings, mode: RetrievalMode): string {
  if (mode === "lexical") return `BM25 (title ${s.lexicalWeights.title}, headings ${s.lexicalWeights.headings}, body ${s.lexicalWeights.body})`;
  if (mode === "vector") return "cosine kNN";
  const f = s.fusion;
  const w = `lexical ${f.lexicalWeight} / vector ${f.vectorWeight}`;
  return f.method === "rrf" ? `RRF k=${f.rrfK}, ${w}` : `weighted ${f.normalization ?? "minmax"}, ${w}`;
}

/** The rows of the report: single modes, the deployment's hybrid, and fusion variants. */
export function modeSpecs(base: EngineSettings, o: BenchOptions): ModeSpec[] {
  const withFusion = (f: Partial<EngineSettings["fusion"]>): EngineSettings => ({ ...base, fusion: { ...base.fusion, ...f } });
  const specs: ModeSpec[] = [
    { label: "lexical only", mode: "lexical", settings: base },
    { label: "vector only", mode: "vector", settings: base },
    { label: "hybrid (deployment default)", mode: "hybrid", settings: base },
    { label: "hybrid rrf", mode: "hybrid", settings: withFusion({ method: "rrf", lexicalWeight: 1, vectorWeight: 1 }) },
    { label: "hybrid weighted 0.5/0.5", mode: "hybrid", settings: withFusion({ method: "weighted", lexicalWeight: 0.5, vectorWeight: 0.5 }) },
    { label: "hybrid weighted 0.8/0.2", mode: "hybrid", settings: withFusion({ method: "weighted", lexicalWeight: 0.8, vectorWeight: 0.2 }) },
  ];
  const custom = customSettings(base, o);
  if (custom) specs.push({ label: "hybrid (command-line settings)", mode: "hybrid", settings: custom });
  return specs;
}

/** Settings from --fusion/--lexical-weight/... on top of `base`, or null when none was given. */
export function customSettings(base: EngineSettings, o: BenchOptions): EngineSettings | null {
  const given = Object.keys(o.fusion).length > 0 || Object.keys(o.lexicalWeights).length > 0 || o.depth !== null;
  if (!given) return null;
  const fusion = { ...base.fusion, ...o.fusion };
  // an RRF request without weights means plain RRF
  if (o.fusion.method === "rrf" && o.fusion.lexicalWeight === undefined && o.fusion.vectorWeight === undefined) {
    fusion.lexicalWeight = 1;
    fusion.vectorWeight = 1;
  }
  return {
    ...base,
    fusion,
    lexicalWeights: { ...base.lexicalWeights, ...o.lexicalWeights },
    depth: o.depth ?? base.depth,
  };
}

export async function measureQuality(
  rt: Runtime,
  tenantId: string,
  collectionId: string,
  queries: Map<string, string>,
  qrels: BeirQrels,
  queryIds: string[],
  specs: ModeSpec[],
  log: (msg: string) => void,
): Promise<QualityRow[]> {
  const rows: QualityRow[] = [];
  for (const spec of specs) {
    const t0 = performance.now();
    const m = await evaluateSetup(rt, tenantId, collectionId, queries, qrels, queryIds, spec);
    const row: QualityRow = {
      label: spec.label,
      mode: spec.mode,
      answered: m.answered,
      fusion: describeFusion(spec.settings, spec.mode),
      ndcg_at_10: m.ndcg,
      recall_at_10: m.recall,
      mrr_at_10: m.mrr,
      queries: m.queries,
      ms: performance.now() - t0,
    };
    log(`  ${row.label.padEnd(32)} nDCG@10 ${row.ndcg_at_10.toFixed(4)}  R@10 ${row.recall_at_10.toFixed(4)}  MRR@10 ${row.mrr_at_10.toFixed(4)}  (${(row.ms / 1000).toFixed(1)} s)`);
    rows.push(row);
  }
  return rows;
}
