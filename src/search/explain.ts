// Why a hit ranks where it does (issue 28 item 6, `explain: true`): its place and score in each
// retriever's candidate list, the fused score the list is ordered by, and the ranking rules that
// changed its fused score. Rules are named, not described, so clients can match on them
// (docs/decisions.md, "Explain"); the query-time rules (synonyms, typo, prefix) are named on the
// hits that matched a term they added.
import type { ExpansionRule } from "./lexical/types.js";

/** A rule that moved a hit's fused score. */
export type ExplainRule =
  /** the lexical list held every match, so fusion bounded it: no vector-only hit passes an exact match (fusion.ts Z_BOUND) */
  | "exact_match_first"
  /** the fused score includes the support of other strong chunks of its document (engine.ts withDocumentEvidence) */
  | "document_evidence"
  /** matched a term added by a synonym, a typo alternative or a completion of the last word (search/lexical/expand.ts) */
  | ExpansionRule;

export interface Explanation {
  lexical: { rank: number; score: number } | null;
  vector: { rank: number; score: number } | null;
  fused: number;
  rules: ExplainRule[];
}

/** What the engine keeps of a ranked chunk's ranking (engine.ts RankedChunk and RankedId). */
export interface RankedScores {
  /** the fused score the list is ordered by (fusion.ts, with document evidence) */
  fusedScore: number;
  /** 1-based places in the candidate lists, null when absent from one */
  lexicalRank: number | null;
  vectorRank: number | null;
  /** BM25 score (higher is better), null when the chunk did not match lexically */
  lexicalScore: number | null;
  /** cosine similarity, null when the chunk was not among the vector candidates */
  vectorScore: number | null;
  /** the ranking rules that moved its fused score */
  rules: ExplainRule[];
}

// six decimals, as relevance is answered: enough to compare, short enough to read
const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function explanationOf(r: RankedScores): Explanation {
  return {
    lexical: r.lexicalRank !== null && r.lexicalScore !== null ? { rank: r.lexicalRank, score: round(r.lexicalScore) } : null,
    vector: r.vectorRank !== null && r.vectorScore !== null ? { rank: r.vectorRank, score: round(r.vectorScore) } : null,
    fused: round(r.fusedScore),
    rules: [...r.rules],
  };
}

const EXPANSION_RULES: readonly ExpansionRule[] = ["synonyms", "typo", "prefix"];

/** The rules that applied to one fused hit (see ExplainRule). */
export function rulesOf(
  hit: { id: string; score: number; lexicalRank: number | null },
  o: { lexicalComplete: boolean; hybrid: boolean; scoreBeforeEvidence: number | undefined; expansions?: readonly ExpansionRule[] | undefined },
): ExplainRule[] {
  const rules: ExplainRule[] = [];
  if (o.hybrid && o.lexicalComplete && hit.lexicalRank !== null) rules.push("exact_match_first");
  if (o.scoreBeforeEvidence !== undefined && hit.score > o.scoreBeforeEvidence) rules.push("document_evidence");
  // in a fixed order, whatever order the store found them in
  for (const r of EXPANSION_RULES) if (o.expansions?.includes(r)) rules.push(r);
  return rules;
}
