// The tenant's term dictionary for query expansion (typo tolerance, prefix search;
// search/lexical/expand.ts): lexical_df's document frequencies, and bands of terms by prefix read
// as one range of the byte-ordered index of migration 116 each, cut as the embedded store cuts
// them (search/lexical/term-dictionary.ts indexBand), and which language prefixes hold a term (an
// "auto" collection's query languages, search/lexical/query-languages.ts): the first live term of
// the prefix's range, one index probe each.
import type { Pool } from "../db.js";
import type { ChunkSearch } from "../../content-store.js";
import type { TermFrequency } from "../../../search/lexical/types.js";
import { answerLookup } from "../../../search/lexical/term-dictionary.js";
import type { PgLexicalCache } from "./lexical-cache.js";

const FREQUENCIES = `
  SELECT (SELECT chunks FROM lexical_stats WHERE tenant_id = $1)::float8 AS n,
    (SELECT json_object_agg(term, df) FROM lexical_df WHERE tenant_id = $1 AND term = ANY($2::text[]) AND df > 0) AS dfs,
    (SELECT array_agg(r.lo) FROM unnest($3::text[], $4::text[]) AS r(lo, hi)
     WHERE EXISTS (SELECT 1 FROM lexical_df d WHERE d.tenant_id = $1 AND d.term COLLATE "C" >= r.lo AND d.term COLLATE "C" < r.hi AND d.df > 0)) AS present`;

const BANDS = `
  SELECT r.i::int AS i, b.term, b.df::float8 AS df
  FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[]) WITH ORDINALITY AS r(lo, hi, minlen, maxlen, lim, i)
  CROSS JOIN LATERAL (
    SELECT d.term, d.df FROM lexical_df d
    WHERE d.tenant_id = $1 AND d.term COLLATE "C" >= r.lo AND d.term COLLATE "C" < r.hi AND d.df > 0
      AND char_length(d.term) BETWEEN r.minlen AND r.maxlen
    ORDER BY d.df DESC, d.term COLLATE "C" LIMIT r.lim) b
  ORDER BY r.i, b.df DESC, b.term COLLATE "C"`;

/** The first string after every string starting with the prefix, in code point order. */
export function prefixEnd(prefix: string): string {
  const cps = [...prefix].map((c) => c.codePointAt(0)!);
  let next = cps.pop()! + 1;
  if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
  return String.fromCodePoint(...cps, Math.min(next, 0x10ffff));
}

export function lexicalTermMethods(pool: Pool, cache: PgLexicalCache): Pick<ChunkSearch, "lexicalTerms"> {
  return {
    async lexicalTerms(tenantId, lookup) {
      // the tenant's in-memory index answers as the embedded store's does (lexical-cache.ts)
      const held = await cache.current(tenantId);
      if (held) return answerLookup(held.index, lookup);
      const ranges = lookup.ranges;
      const [freq, bands] = await Promise.all([
        pool.query<{ n: number | null; dfs: Record<string, number> | null; present: string[] | null }>(FREQUENCIES, [
          tenantId,
          lookup.terms,
          lookup.present ?? [],
          (lookup.present ?? []).map(prefixEnd),
        ]),
        ranges.length > 0
          ? pool.query<{ i: number; term: string; df: number }>(BANDS, [
              tenantId,
              ranges.map((r) => r.prefix),
              ranges.map((r) => prefixEnd(r.prefix)),
              ranges.map((r) => r.minLength),
              ranges.map((r) => r.maxLength),
              ranges.map((r) => r.limit),
            ])
          : null,
      ]);
      const row = freq.rows[0];
      const out: TermFrequency[][] = lookup.ranges.map(() => []);
      for (const b of bands?.rows ?? []) out[b.i - 1]!.push({ term: b.term, df: b.df });
      const present = lookup.present && { present: row?.present ?? [] };
      return { docCount: row?.n ?? 0, df: new Map(Object.entries(row?.dfs ?? {})), ranges: out, ...present };
    },
  };
}
