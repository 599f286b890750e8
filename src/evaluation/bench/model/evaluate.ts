// Scores an embedding model on an evaluation set in memory: vector-only (exact cosine kNN over
// every passage) and hybrid (the engine's BM25 ranking and its default fusion over the two
// candidate lists), each collapsed to the judged unit (document or page) before nDCG@10. The
// hybrid here is the core of POST /search's ranking without its extras (document evidence,
// exact-match rules); the benches over HTTP give the deployment's figures.
import { analyzeChunk, DEFAULT_ANALYZER } from "../../../search/lexical/analyze.js";
import { lexicalQueryOf } from "../../../search/lexical/analyze-query.js";
import { Bm25Index } from "../../../search/lexical/bm25-index.js";
import { rankLexical } from "../../../search/lexical/rank.js";
import { DEFAULT_LEXICAL_WEIGHTS } from "../../../search/engine.js";
import { fuse, type Candidate, type FusionOptions } from "../../../search/fusion.js";
import { fullMatchScore, lexicalCoverage } from "./coverage.js";
import { ndcgAtKGraded, recallAtK } from "../../ranking-metrics.js";
import { embeddedText, type EvalSet } from "./sets.js";
import { PLAIN_KINDS } from "../docs-questions/questions.js";

export interface TextEmbedder {
  readonly dimension: number;
  embed(text: string, kind: "query" | "passage"): Float32Array;
}

export interface ModeScores {
  ndcg10: number;
  recall10: number;
  /** per query group (docs: question kind) */
  groups: Record<string, { n: number; ndcg10: number; recall10: number }>;
}

export interface SetScores {
  set: string;
  queries: number;
  vector: ModeScores;
  lexical: ModeScores;
  hybrid: ModeScores;
}

/** The plain-language questions' (natural and how-to, issue 27's measure) mean nDCG@10, null when the set has none. */
export function plainNdcg(m: ModeScores): number | null {
  const gs = PLAIN_KINDS.map((k) => m.groups[k]).filter((g) => g !== undefined);
  const n = gs.reduce((a, g) => a + g.n, 0);
  return n ? gs.reduce((a, g) => a + g.n * g.ndcg10, 0) / n : null;
}

const DEPTH = 100;
const K = 10;

/** Lexical candidate lists per query (best chunk first), computed once per set. */
export function lexicalLists(set: EvalSet): Candidate[][] {
  return lexicalRuns(set).lists;
}

/**
 * The lexical lists and each query's lexical coverage (coverage.ts: the best hit's
 * score over the query's full-match score under the set's statistics).
 */
export function lexicalRuns(set: EvalSet): { lists: Candidate[][]; coverage: number[] } {
  const index = new Bm25Index();
  const fields = set.passages.map((p) => ({ title: p.title, headings: p.headings.join(" "), body: p.body }));
  fields.forEach((f, i) => index.add(i, 0, analyzeChunk(f, DEFAULT_ANALYZER)));
  const allowed = new Uint8Array([1]);
  const fieldsOf = (keys: number[]) => new Map(keys.map((k) => [k, fields[k]!]));
  const coverage: number[] = [];
  const lists = set.queries.map((q) => {
    const lexical = lexicalQueryOf(q.text, DEFAULT_ANALYZER).lexical;
    const hits = lexical ? rankLexical(index, allowed, lexical, DEPTH, DEFAULT_LEXICAL_WEIGHTS, fieldsOf, DEFAULT_ANALYZER) : [];
    coverage.push(lexical ? lexicalCoverage(hits[0]?.score, fullMatchScore(lexical, index.docCount, (t) => index.df(t))) : 0);
    return hits.map((h) => ({ id: String(h.key), score: h.score }));
  });
  return { lists, coverage };
}

/** Passage vectors, row-major (passages x dimension). */
export function passageMatrix(set: EvalSet, model: TextEmbedder): Float32Array {
  const d = model.dimension;
  const m = new Float32Array(set.passages.length * d);
  set.passages.forEach((p, i) => m.set(model.embed(embeddedText(p), "passage"), i * d));
  return m;
}

/** The `depth` passages nearest to the query vector (cosine: vectors are unit length). */
export function nearest(matrix: Float32Array, d: number, q: Float32Array, depth = DEPTH): Candidate[] {
  const n = matrix.length / d;
  const scores = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    const base = i * d;
    for (let j = 0; j < d; j++) s += matrix[base + j]! * q[j]!;
    scores[i] = s;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  return order.slice(0, depth).map((i) => ({ id: String(i), score: scores[i]! }));
}

/** Judged units in order of their best passage. */
function collapse(set: EvalSet, list: readonly { id: string }[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of list) {
    const doc = set.passages[Number(c.id)]!.doc;
    if (!seen.has(doc)) {
      seen.add(doc);
      out.push(doc);
    }
  }
  return out;
}

function summarize(set: EvalSet, ranked: string[][]): ModeScores {
  const groups: ModeScores["groups"] = {};
  let ndcg = 0;
  let recall = 0;
  set.queries.forEach((q, i) => {
    const n = ndcgAtKGraded(ranked[i]!, q.relevant, K);
    const r = recallAtK(ranked[i]!, q.relevant, K);
    ndcg += n;
    recall += r;
    const g = (groups[q.group] ??= { n: 0, ndcg10: 0, recall10: 0 });
    g.n++;
    g.ndcg10 += n;
    g.recall10 += r;
  });
  for (const g of Object.values(groups)) {
    g.ndcg10 /= g.n;
    g.recall10 /= g.n;
  }
  const n = Math.max(1, set.queries.length);
  return { ndcg10: ndcg / n, recall10: recall / n, groups };
}

/** Each query's vector candidate list (nearest passages first). */
export function vectorLists(set: EvalSet, model: TextEmbedder): Candidate[][] {
  const matrix = passageMatrix(set, model);
  return set.queries.map((q) => nearest(matrix, model.dimension, model.embed(q.text, "query")));
}

/** Vector-only, lexical-only and hybrid scores of the model on the set (hybrid: the default fusion unless `fusion` says otherwise). */
export function scoreSet(set: EvalSet, model: TextEmbedder, lexical: Candidate[][] = lexicalLists(set), fusion: QueryFusion = {}): SetScores {
  return scoreLists(set, lexical, vectorLists(set, model), fusion);
}

/** Fusion settings for every query alike, or per query (its index in the set): adaptive fusion. */
export type QueryFusion = Partial<FusionOptions> | ((query: number) => Partial<FusionOptions>);

/** Each query's two lists fused with `fusion` (the service's default fusion unless it says otherwise). */
export function fusedLists(lexical: Candidate[][], vector: Candidate[][], fusion: QueryFusion = {}): Candidate[][] {
  const fusionOf = typeof fusion === "function" ? fusion : () => fusion;
  return lexical.map((lex, i) => fuse(lex, vector[i]!, fusionOf(i), { lexicalComplete: lex.length < DEPTH }));
}

/** Each query's nDCG@10 for its list, collapsed to the judged unit. */
export function perQueryNdcg(set: EvalSet, lists: readonly (readonly { id: string }[])[]): number[] {
  return set.queries.map((q, i) => ndcgAtKGraded(collapse(set, lists[i]!), q.relevant, K));
}

/** The scores of given candidate lists, fused with `fusion` (the service's default fusion unless it says otherwise). */
export function scoreLists(set: EvalSet, lexical: Candidate[][], vector: Candidate[][], fusion: QueryFusion = {}): SetScores {
  const hybridLists = fusedLists(lexical, vector, fusion);
  return {
    set: set.name,
    queries: set.queries.length,
    vector: summarize(set, vector.map((l) => collapse(set, l))),
    lexical: summarize(set, lexical.map((l) => collapse(set, l))),
    hybrid: summarize(set, hybridLists.map((l) => collapse(set, l))),
  };
}
