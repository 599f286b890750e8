// The filter bench's exact filtered rankings on the engine's side of the line: the exact lexical
// list of a filter is the store's unfiltered BM25 ranking of the whole tenant walked down until
// FUSION_DEPTH of the filter's documents are found (a filter narrows, it does not rescore, so this
// is the filtered ranking without the filter's code path), and the exact hybrid top 10 is the
// engine's own fusion of the exact lexical and exact vector lists.
import type { Runtime } from "../../../runtime.js";
import { DEFAULT_ENGINE_SETTINGS, fuseCandidates } from "../../../search/engine.js";
import { lexicalQueryOf } from "../../../search/lexical/analyze-query.js";
import { queryAnalyzer } from "../../../search/lexical/languages.js";
import type { BenchTenant } from "./adapter.js";
import { FUSION_DEPTH, type ExactList } from "./exact-filtered.js";

const WALK_BATCH = 2_000;

/**
 * Per filter (null: none), the exact lexical top FUSION_DEPTH as "<document id>#<position>" keys.
 * `passes[i]` holds the ids of the documents filter i selects.
 */
export async function exactLexicalLists(rt: Runtime, t: BenchTenant, query: string, passes: (Set<string> | null)[], tenantChunks: number): Promise<ExactList[]> {
  const content = rt.store.content;
  const lexical = lexicalQueryOf(query, queryAnalyzer(undefined)).lexical;
  if (!lexical) return passes.map(() => ({ keys: [], scores: [] }));
  const all = await content.lexicalSearch(t.id, [t.mainSourceId, t.sideSourceId], lexical, tenantChunks, DEFAULT_ENGINE_SETTINGS.lexicalWeights);
  const picked = passes.map(() => [] as { chunkId: string; documentId: string; score: number }[]);
  for (let at = 0; at < all.length && picked.some((p) => p.length < FUSION_DEPTH); at += WALK_BATCH) {
    const batch = all.slice(at, at + WALK_BATCH);
    const docOf = await content.chunkDocuments(t.id, batch.map((s) => s.chunkId));
    for (const s of batch) {
      const documentId = docOf.get(s.chunkId)!;
      passes.forEach((p, i) => {
        if (picked[i].length < FUSION_DEPTH && (p === null || p.has(documentId))) picked[i].push({ ...s, documentId });
      });
    }
  }
  const chunks = await content.hydrateChunks(t.id, [...new Set(picked.flat().map((s) => s.chunkId))]);
  return picked.map((list) => ({
    keys: list.map((s) => `${s.documentId}#${chunks.get(s.chunkId)!.position}`),
    scores: list.map((s) => s.score),
  }));
}

const candidates = (l: ExactList) => l.keys.map((id, i) => ({ id, score: l.scores[i] }));

/** the exact hybrid top 10: the engine's fusion (default settings) of the exact lists */
export function exactHybridTop(lexical: ExactList, vector: ExactList, k = 10): string[] {
  return fuseCandidates(candidates(lexical), candidates(vector), "hybrid", DEFAULT_ENGINE_SETTINGS)
    .fused.slice(0, k)
    .map((f) => f.id);
}
