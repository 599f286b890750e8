-- Postings of the lexical index: one row per (tenant, term, chunk) with the term's packed
-- title/headings/body counts and the chunk's length, kept by the same statement triggers as the
-- statistics. A query reads only the postings of its own terms from this B-tree (index-only scan)
-- and sums BM25 per chunk; the tsvector + GIN candidates of 050 scored every candidate by
-- searching its term array once per query term: ~360 ms per SciFact query against ~14 ms this
-- way (docs/decisions.md, "PostgreSQL lexical search"), so the tsvector column is dropped.
CREATE TABLE lexical_postings (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  term TEXT NOT NULL,
  chunk_id BIGINT NOT NULL,
  data_source_id TEXT NOT NULL,
  tf INTEGER NOT NULL,
  lex_length INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, term, chunk_id) INCLUDE (data_source_id, tf, lex_length)
);

INSERT INTO lexical_postings (tenant_id, term, chunk_id, data_source_id, tf, lex_length)
  SELECT c.tenant_id, u.term, c.id, c.data_source_id, u.tf, c.lex_length
  FROM chunks c CROSS JOIN LATERAL unnest(c.lex_terms, c.lex_tfs) AS u(term, tf);

ALTER TABLE chunks DROP COLUMN lex_tsv;

CREATE OR REPLACE FUNCTION lexical_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lexical_stats AS s (tenant_id, chunks, total_length)
    SELECT tenant_id, count(*), sum(lex_length) FROM added GROUP BY tenant_id ORDER BY tenant_id
  ON CONFLICT (tenant_id) DO UPDATE SET chunks = s.chunks + excluded.chunks, total_length = s.total_length + excluded.total_length;
  INSERT INTO lexical_df AS d (tenant_id, term, df)
    SELECT a.tenant_id, t.term, count(*) FROM added a, unnest(a.lex_terms) AS t(term)
    GROUP BY a.tenant_id, t.term ORDER BY a.tenant_id, t.term
  ON CONFLICT (tenant_id, term) DO UPDATE SET df = d.df + excluded.df;
  INSERT INTO lexical_postings (tenant_id, term, chunk_id, data_source_id, tf, lex_length)
    SELECT a.tenant_id, u.term, a.id, a.data_source_id, u.tf, a.lex_length
    FROM added a CROSS JOIN LATERAL unnest(a.lex_terms, a.lex_tfs) AS u(term, tf);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION lexical_chunks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE lexical_stats s SET chunks = s.chunks - x.n, total_length = s.total_length - x.len
    FROM (SELECT tenant_id, count(*) AS n, sum(lex_length) AS len FROM removed GROUP BY tenant_id) x
    WHERE s.tenant_id = x.tenant_id;
  UPDATE lexical_df d SET df = d.df - g.n
    FROM (SELECT r.tenant_id, t.term, count(*) AS n FROM removed r, unnest(r.lex_terms) AS t(term)
          GROUP BY r.tenant_id, t.term ORDER BY r.tenant_id, t.term) g
    WHERE d.tenant_id = g.tenant_id AND d.term = g.term;
  DELETE FROM lexical_df d
    USING (SELECT DISTINCT r.tenant_id, t.term FROM removed r, unnest(r.lex_terms) AS t(term)) g
    WHERE d.tenant_id = g.tenant_id AND d.term = g.term AND d.df <= 0;
  DELETE FROM lexical_postings p
    USING (SELECT r.tenant_id, t.term, r.id FROM removed r, unnest(r.lex_terms) AS t(term)) g
    WHERE p.tenant_id = g.tenant_id AND p.term = g.term AND p.chunk_id = g.id;
  RETURN NULL;
END $$;
