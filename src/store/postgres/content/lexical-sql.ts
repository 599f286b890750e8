// The lexical search statement: BM25 of the postings of the query's terms summed per chunk, the
// best `pool` kept (docs/decisions.md "PostgreSQL lexical search" and "... top-k pruning").
//
// Arithmetic per posting is float8 throughout: a bare decimal literal (0.75 * lex_length) is
// numeric in PostgreSQL, several times slower per row than float8; the statistics travel on the
// term's row instead of a CTE joined to every posting. The rules a chunk matched are collected
// with repeats (lexical.ts makes them distinct): a DISTINCT aggregate rules out hash aggregation,
// and the sort of every posting by chunk it forces cost a third of the statement.
import { HEADINGS_SHIFT, MAX_BODY_TF, MAX_HEADINGS_TF, MAX_TITLE_TF, TITLE_SHIFT } from "../../../search/lexical/analyze.js";
import { B, K1 } from "../../../search/lexical/bm25.js";
import { filteredChunksSql } from "./filter-sql.js";

// Parameters: $1 tenant, $2 terms, $3 term weights (counts), $4 data source ids, $5-$7 title /
// headings / body weights, $8 pool (k), $9 phrases (space-joined), $10 each term's expansion rule
// ('' for none), a filter's own from $11.

/** BM25 of one posting `p` for the query term `q` (its weight and the statistics `st` carried on its row) */
const CONTRIBUTION = `q.w * (f.f * ${K1 + 1}::float8) / (f.f + ${K1}::float8 * (${1 - B}::float8 + (${B}::float8 * p.lex_length) / q.avgdl))`;
const FIELDS = `CROSS JOIN LATERAL (SELECT ((p.tf >> ${TITLE_SHIFT}) & ${MAX_TITLE_TF}) * $5::float8 + ((p.tf >> ${HEADINGS_SHIFT}) & ${MAX_HEADINGS_TF}) * $6::float8
      + (p.tf & ${MAX_BODY_TF}) * $7::float8 AS f) f`;

/** the postings of the terms `q` the search may see: its sources and, with a filter, its chunks */
const postings = (filter: string | null) =>
  `JOIN lexical_postings p ON p.tenant_id = $1 AND p.term = q.term AND p.data_source_id = ANY($4::text[])${filter === null ? "" : " AND p.chunk_id IN (SELECT id FROM allowed)"}`;

/**
 * Each result with whether its chunk holds all terms of one of the phrases ($9). Without phrases
 * the chunks are not read at all: the join fetched a heap row per result (100 at the engine's
 * depth) only to find nothing to check, 9-11 % of the statement on SciFact's 180 phrase-free
 * queries (docs/decisions.md "PostgreSQL lexical top-k pruning"). $9 is still named, empty.
 */
const RESULTS = (phrases: boolean) =>
  phrases
    ? `SELECT t.chunk_id::text AS id, t.lex_length, t.score, t.rules,
    EXISTS (SELECT 1 FROM unnest($9::text[]) AS ph WHERE c.lex_terms @> string_to_array(ph, ' ')) AS phrase_candidate
  FROM top t JOIN chunks c ON c.tenant_id = $1 AND c.id = t.chunk_id`
    : `SELECT t.chunk_id::text AS id, t.lex_length, t.score, t.rules, cardinality($9::text[]) > 0 AS phrase_candidate
  FROM top t`;

export const searchSql = (filter: string | null, phrases: boolean) => `
  WITH ${filter === null ? "" : `allowed AS MATERIALIZED (${filteredChunksSql(filter, "$1", "$4")}),`}
  q AS (
    SELECT x.term, NULLIF(x.rule, '') AS rule, st.avgdl, x.cnt * GREATEST(ln((st.n - d.df + 0.5::float8) / (d.df + 0.5::float8)), 1e-6::float8) AS w
    FROM (SELECT chunks::float8 AS n, total_length::float8 / chunks AS avgdl FROM lexical_stats WHERE tenant_id = $1 AND chunks > 0) st
    CROSS JOIN unnest($2::text[], $3::float8[], $10::text[]) AS x(term, cnt, rule)
    JOIN lexical_df d ON d.tenant_id = $1 AND d.term = x.term AND d.df > 0),
  top AS (
    SELECT p.chunk_id, min(p.lex_length) AS lex_length, array_agg(q.rule) FILTER (WHERE q.rule IS NOT NULL) AS rules,
      sum(${CONTRIBUTION}) AS score
    FROM q ${postings(filter)} ${FIELDS}
    GROUP BY p.chunk_id
    -- equal scores in arrival order (chunk ids grow), as the SQLite engine breaks ties
    ORDER BY score DESC, p.chunk_id LIMIT $8)
  ${RESULTS(phrases)}
  ORDER BY t.score DESC, t.chunk_id`;
