// The blend of one request (issue 28 item 6): `hybrid.semantic_ratio` from 0 (lexical only) to 1
// (vector only) in place of the collection's fusion weights. The ends are the single-list modes
// themselves, so a ratio of 0 ranks exactly as lexical mode does; without a ready model a request
// answers lexically, as every search does then (docs/decisions.md, "Blend per request").
import type { EngineSettings, RetrievalMode } from "../../search/engine.js";

export interface Blend {
  settings: EngineSettings;
  mode: RetrievalMode;
}

export function blendFor(settings: EngineSettings, semanticRatio: number | undefined, vectorsReady: boolean): Blend {
  if (semanticRatio === undefined) return { settings, mode: "hybrid" };
  if (semanticRatio <= 0 || !vectorsReady) return { settings, mode: "lexical" };
  if (semanticRatio >= 1) return { settings, mode: "vector" };
  return { settings: { ...settings, fusion: { ...settings.fusion, lexicalWeight: 1 - semanticRatio, vectorWeight: semanticRatio } }, mode: "hybrid" };
}
