// Fusion of the lexical (BM25) and vector (cosine kNN) candidate lists into one ranking.
//
// Input scores must be "higher is better". FTS5's bm25() is negative-is-better, so the store
// passes `-bm25()` (it is then >= 0 for matching rows). Vector scores are cosine similarities in
// [-1, 1]. Each list must be ordered best first; a list's order defines its ranks (1-based).
//
// Two methods:
// - 'rrf': weighted reciprocal-rank fusion, score = sum_i w_i / (k + rank_i). Uses ranks only,
//   so it is immune to score scales but gives a weak list's top hits as much say as a strong
//   list's (DESIGN.md §4 measured naive RRF 3-10 nDCG points below BM25 with the default model).
// - 'weighted': a convex combination of per-query normalised scores (the convex-combination
//   fusion of Bruch et al., "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023,
//   which beat RRF there and needs few labelled queries to tune). Scores carry how
//   much better the first hit is than the tenth, so a confident BM25 match is not outvoted by a
//   weak embedding's arbitrary order, and the weights say how much each signal is trusted.
//   Default normalisation is min-max per list (best = 1, worst candidate = 0); 'zscore' is also
//   available. A document missing from a list gets that list's worst normalised value, i.e. it
//   is treated like the weakest candidate the list returned.
//
// Defaults: 'weighted', min-max, lexical 0.7 / vector 0.3 (DESIGN.md §6 names RRF as the default;
// §4's measurement is why this default is score-based until the SciFact tuning says otherwise).
// They favour the lexical list because the default embedding model is weak on technical text, and
// are parameters so the service can tune them per collection (measure before changing).

export interface Candidate {
  id: string;
  /** higher is better: -bm25() for lexical, cosine similarity for vector */
  score: number;
}

export type FusionMethod = "rrf" | "weighted";
export type ScoreNormalization = "minmax" | "zscore";

export interface FusionOptions {
  method: FusionMethod;
  /** weight of the lexical list, >= 0 */
  lexicalWeight: number;
  /** weight of the vector list, >= 0 */
  vectorWeight: number;
  /** RRF rank constant (method 'rrf'); 60 as in Cormack et al. 2009 */
  rrfK: number;
  /** score normalisation for method 'weighted'; default 'minmax' */
  normalization?: ScoreNormalization;
}

export interface FusedHit {
  id: string;
  /** fused score, higher is better */
  score: number;
  /** 1-based rank in the lexical list, null when absent */
  lexicalRank: number | null;
  /** 1-based rank in the vector list, null when absent */
  vectorRank: number | null;
  /** the lexical input score (as given), null when absent */
  lexicalScore: number | null;
  /** the vector input score (cosine), null when absent */
  vectorScore: number | null;
}

export const DEFAULT_FUSION_OPTIONS: Readonly<Required<FusionOptions>> = Object.freeze({
  method: "weighted",
  lexicalWeight: 0.7,
  vectorWeight: 0.3,
  rrfK: 60,
  // z-scores measured best on SciFact with the default model (0.701 vs 0.698 min-max, 0.487
  // plain RRF; docs/benchmarks.md)
  normalization: "zscore",
});

interface Entry {
  hit: FusedHit;
  /** weighted RRF score: breaks ties of the 'weighted' method by rank (see fuse) */
  rankScore: number;
  /** first-seen order: lexical list first, then vector-only hits; the last tie-breaker */
  order: number;
}

/** Keep the first (best-ranked) occurrence of each id; ranks are positions after that. */
function dedupeList(list: readonly Candidate[]): Candidate[] {
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const c of list) {
    if (seen.has(c.id)) continue;
    seen.add(c.id);
    out.push(c);
  }
  return out;
}

/**
 * Bound of z-scores when the lexical list holds every match (it came back shorter than asked).
 * A list's outliers (a z-score of n candidates reaches sqrt(n - 1), ~10 for 100) could otherwise
 * outweigh everything the other list says: bounded, the lexical candidates score at least
 * -Z_BOUND, every chunk that did not match lexically exactly -Z_BOUND, and vector scores lie in
 * [-Z_BOUND, Z_BOUND], so with lexical weight >= vector weight no vector-only neighbour passes the
 * only exact match (issue 16: an identifier that occurs in one chunk comes first). Full lists
 * (the usual case of natural-language queries) are not bounded: on SciFact the best BM25 hit sits
 * a median 5.4 standard deviations above the list, and that lead is what makes z-score fusion
 * beat min-max there.
 */
export const Z_BOUND = 3;

const clip = (z: number): number => (z > Z_BOUND ? Z_BOUND : z < -Z_BOUND ? -Z_BOUND : z);

/**
 * Normalised scores of a list, in list order, plus the value used for documents the list did not
 * return. Non-finite scores count as the list's worst score. `complete`: the list holds every
 * match there is (it came back shorter than asked), so a document missing from it did not match at
 * all and gets the floor rather than the list's weakest value.
 */
function normalize(
  list: readonly Candidate[],
  method: ScoreNormalization,
  o: { complete: boolean; bounded: boolean },
): { values: number[]; missing: number } {
  const finite = list.map((c) => c.score).filter((s) => Number.isFinite(s));
  if (finite.length === 0) return { values: list.map(() => 0), missing: 0 };
  const min = finite.reduce((a, b) => (b < a ? b : a));
  const max = finite.reduce((a, b) => (b > a ? b : a));
  const scores = list.map((c) => (Number.isFinite(c.score) ? c.score : min));
  if (method === "minmax") {
    // One candidate, or all equal: nothing distinguishes them, so all are "best".
    if (max === min) return { values: scores.map(() => 1), missing: 0 };
    return { values: scores.map((s) => (s - min) / (max - min)), missing: 0 };
  }
  const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
  const sd = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / finite.length);
  if (sd === 0) {
    // One candidate (or all equal): nothing to spread. If these are all the matches there are,
    // they are the best the list can say (the bound) and the rest did not match (the floor);
    // otherwise present candidates sit one unit above absent ones (as min-max gives 1 vs 0).
    return o.complete ? { values: scores.map(() => Z_BOUND), missing: -Z_BOUND } : { values: scores.map(() => 1), missing: 0 };
  }
  const z = (s: number): number => (o.bounded ? clip((s - mean) / sd) : (s - mean) / sd);
  return { values: scores.map(z), missing: o.complete ? -Z_BOUND : z(min) };
}

function checkWeight(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
}

/**
 * Fuse two ranked candidate lists (each best first) into one list sorted by fused score,
 * descending. Every id from either list appears once. Equal fused scores are broken by the
 * weighted RRF score (so with min-max, where a list's last candidate normalises to 0 like an
 * absent one, a returned candidate still beats a missing one, and weights 0/1 reproduce one
 * list's order exactly), then by first appearance: lexical list order, then vector-only ids.
 */
export function fuse(
  lexical: readonly Candidate[],
  vector: readonly Candidate[],
  options: Partial<FusionOptions> = {},
  /** the lexical list holds every lexical match (a vector list never does: chunks may lack vectors) */
  lists: { lexicalComplete?: boolean } = {},
): FusedHit[] {
  const opts: Required<FusionOptions> = { ...DEFAULT_FUSION_OPTIONS, ...options };
  checkWeight("lexicalWeight", opts.lexicalWeight);
  checkWeight("vectorWeight", opts.vectorWeight);
  if (!Number.isFinite(opts.rrfK) || opts.rrfK < 0) throw new RangeError(`rrfK must be >= 0, got ${opts.rrfK}`);

  const lex = dedupeList(lexical);
  const vec = dedupeList(vector);
  const entries = new Map<string, Entry>();
  const entry = (id: string): Entry => {
    let e = entries.get(id);
    if (!e) {
      e = {
        hit: { id, score: 0, lexicalRank: null, vectorRank: null, lexicalScore: null, vectorScore: null },
        rankScore: 0,
        order: entries.size,
      };
      entries.set(id, e);
    }
    return e;
  };
  lex.forEach((c, i) => {
    const e = entry(c.id);
    e.hit.lexicalRank = i + 1;
    e.hit.lexicalScore = c.score;
  });
  vec.forEach((c, i) => {
    const e = entry(c.id);
    e.hit.vectorRank = i + 1;
    e.hit.vectorScore = c.score;
  });

  for (const e of entries.values()) {
    let s = 0;
    if (e.hit.lexicalRank !== null) s += opts.lexicalWeight / (opts.rrfK + e.hit.lexicalRank);
    if (e.hit.vectorRank !== null) s += opts.vectorWeight / (opts.rrfK + e.hit.vectorRank);
    e.rankScore = s;
  }
  if (opts.method === "rrf") {
    for (const e of entries.values()) e.hit.score = e.rankScore;
  } else {
    const complete = lists.lexicalComplete === true;
    const ln = normalize(lex, opts.normalization, { complete, bounded: complete });
    const vn = normalize(vec, opts.normalization, { complete: false, bounded: complete });
    for (const { hit } of entries.values()) {
      const l = hit.lexicalRank !== null ? ln.values[hit.lexicalRank - 1] : ln.missing;
      const v = hit.vectorRank !== null ? vn.values[hit.vectorRank - 1] : vn.missing;
      hit.score = opts.lexicalWeight * (l ?? 0) + opts.vectorWeight * (v ?? 0);
    }
  }

  return [...entries.values()]
    .sort((a, b) => b.hit.score - a.hit.score || b.rankScore - a.rankScore || a.order - b.order)
    .map((e) => e.hit);
}
