// BM25 in PostgreSQL, scored as the in-memory index scores (search/lexical): the same
// analyzer (letter/digit runs, case folded, Latin diacritics removed, Porter stems) applied in the
// application, the terms stored per chunk with packed title/headings/body counts and copied into
// a postings B-tree (tenant, term, chunk) that a query reads for its own terms only, and BM25 (k1 1.2, b 0.75, FTS5's idf floor,
// field weights multiplying the per-field counts) from the tenant's exact statistics, which
// triggers keep in the chunk writes' transactions (migration 050). Phrases are verified on the
// best candidates by re-analysing their text and add BM25 of their occurrences (search/lexical/phrases.ts).
import { transaction, type Pool, type Queryable } from "../db.js";
import type { Scored } from "../../content-types.js";
import type { ChunkSearch } from "../../content-store.js";
import { termWeight, type ExpansionRule, type LexicalQuery, type LexicalWeights } from "../../../search/lexical/types.js";
import { headingsField } from "../../../search/lexical/analyze.js";
import { PHRASE_POOL_FACTOR, boostPhrases, type CandidateText, type LexicalStatistics } from "../../../search/lexical/phrases.js";
import { parseJson } from "./rows.js";
import { analyzerOfTerms } from "../../../search/lexical/languages.js";
import type { SearchFilter } from "../../../search/filter/types.js";
import { postgresFilter } from "./filter-sql.js";
import { searchSql } from "./lexical-sql.js";
import type { HeldIndex, PgLexicalCache } from "./lexical-cache.js";
import { allowedSources } from "../../../search/lexical/source-ordinals.js";
import { rankLexicalAsync, scoredHits } from "../../../search/lexical/rank.js";
import type { ChunkFields } from "../../../search/lexical/analyze.js";

/** terms above this many bytes are left out of the postings (a B-tree entry must fit a third of a page) */
export const MAX_TERM_BYTES = 1000;

// One statement: statistics, per-term weights and the scored chunks read one snapshot, only the
// postings of the query's terms (migration 051), summed per chunk, the best `pool` kept
// (lexical-sql.ts; no top-k pruning: docs/decisions.md "PostgreSQL lexical top-k pruning"). A search filter's chunks (parameters from $11) restrict the postings inside
// the scan, so the top k is the filtered set's own.
const SEARCH = { phrases: searchSql(null, true), plain: searchSql(null, false) };

interface Hit {
  id: string;
  lex_length: number;
  score: number;
  rules: ExpansionRule[] | null;
  phrase_candidate: boolean;
}

/** The tenant's statistics for these terms, or null when it has no chunks. */
async function statisticsOf(q: Queryable, tenantId: string, terms: string[]): Promise<LexicalStatistics | null> {
  const r = await q.query<{ n: number; total: number; dfs: Record<string, number> | null }>(
    `SELECT s.chunks::float8 AS n, s.total_length::float8 AS total,
       (SELECT json_object_agg(term, df) FROM lexical_df WHERE tenant_id = $1 AND term = ANY($2::text[]) AND df > 0) AS dfs
     FROM lexical_stats s WHERE s.tenant_id = $1`,
    [tenantId, terms],
  );
  const st = r.rows[0];
  if (!st || st.n <= 0) return null;
  const dfs = st.dfs ?? {};
  return { docCount: st.n, avgdl: st.total / st.n, df: (term) => dfs[term] ?? 0 };
}

/** The title, headings and text of these chunks (phrase candidates), by chunk id. */
async function candidateFields(q: Queryable, tenantId: string, ids: string[]): Promise<Map<string, ChunkFields>> {
  const r = await q.query<{ id: string; title: string; heading_path: string; text: string }>(
    `SELECT c.id::text AS id, d.title, c.heading_path, c.text FROM chunks c
     JOIN documents d ON d.tenant_id = c.tenant_id AND d.id = c.document_id
     WHERE c.tenant_id = $1 AND c.id = ANY($2::bigint[])`,
    [tenantId, ids],
  );
  return new Map(r.rows.map((f) => [f.id, { title: f.title, headings: headingsField(parseJson<string[]>(f.heading_path, [])), body: f.text }]));
}

/** Adds the phrases' scores to the candidates whose terms hold a whole phrase, then re-sorts (phrases.ts). */
async function boostHits(q: Queryable, tenantId: string, hits: Hit[], phrases: string[][], w: LexicalWeights): Promise<Hit[]> {
  const cand = hits.filter((h) => h.phrase_candidate);
  if (cand.length === 0) return hits;
  const stats = await statisticsOf(q, tenantId, [...new Set(phrases.flat())]);
  if (!stats) return hits;
  const byId = await candidateFields(q, tenantId, cand.map((h) => h.id));
  const textOf = (h: Hit): CandidateText | undefined => {
    const fields = byId.get(h.id);
    return fields && { fields, length: h.lex_length };
  };
  return boostPhrases(hits, cand, textOf, phrases, stats, w, analyzerOfTerms(phrases));
}

/** The statement's parameters $1-$10 (lexical-sql.ts), for `pool` results. */
export function searchParams(tenantId: string, sourceIds: string[], query: LexicalQuery, pool: number, w: LexicalWeights): unknown[] {
  return [
    tenantId,
    query.terms.map((t) => t.term),
    query.terms.map(termWeight),
    sourceIds,
    w.title,
    w.headings,
    w.body,
    pool,
    query.phrases.map((p) => p.join(" ")),
    query.terms.map((t) => t.rule ?? ""),
  ];
}

async function search(q: Queryable, tenantId: string, sourceIds: string[], query: LexicalQuery, limit: number, w: LexicalWeights, filter?: SearchFilter) {
  const pool = query.phrases.length ? limit * PHRASE_POOL_FACTOR : limit;
  const f = filter ? postgresFilter(filter, 11) : null;
  const phrases = query.phrases.length > 0;
  const sql = f ? searchSql(f.sql, phrases) : phrases ? SEARCH.phrases : SEARCH.plain;
  const r = await q.query<Hit>(sql, [...searchParams(tenantId, sourceIds, query, pool, w), ...(f ? f.params : [])]);
  let hits = r.rows;
  if (query.phrases.length) hits = await boostHits(q, tenantId, hits, query.phrases, w);
  // the statement collects a chunk's rules with repeats (lexical-sql.ts): each once, sorted
  return hits.slice(0, limit).map((h): Scored => (h.rules ? { chunkId: h.id, score: h.score, rules: [...new Set(h.rules)].sort() } : { chunkId: h.id, score: h.score }));
}

/**
 * The tenant's in-memory index (lexical-cache.ts) answers as the statement would. Phrase
 * candidates' text is read after the generation check: a chunk removed meanwhile has no text, is
 * not boosted, and is dropped by hydration like any hit deleted after its search.
 */
async function searchHeld(pool: Pool, h: HeldIndex, tenantId: string, sourceIds: string[], query: LexicalQuery, limit: number, w: LexicalWeights): Promise<Scored[]> {
  const fieldsOf = async (keys: number[]) => new Map([...(await candidateFields(pool, tenantId, keys.map(String)))].map(([id, f]) => [Number(id), f]));
  const hits = await rankLexicalAsync(h.index, allowedSources(h.sources, sourceIds), query, limit, w, fieldsOf, analyzerOfTerms(query.phrases));
  return scoredHits(hits, query);
}

export function lexicalMethods(pool: Pool, cache: PgLexicalCache): Pick<ChunkSearch, "lexicalSearch"> {
  return {
    async lexicalSearch(tenantId, sourceIds, query, limit, w, filter) {
      if (sourceIds.length === 0 || limit <= 0 || query.terms.length === 0) return [];
      // a filter's chunks are a SQL condition: those searches stay in the statement
      const held = filter ? null : await cache.current(tenantId);
      if (held) return searchHeld(pool, held, tenantId, sourceIds, query, limit, w);
      if (query.phrases.length === 0) return search(pool, tenantId, sourceIds, query, limit, w, filter);
      // phrase scoring reads the statistics again: one snapshot for both reads
      return transaction(pool, async (c) => {
        await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        return search(c, tenantId, sourceIds, query, limit, w, filter);
      });
    },
  };
}
