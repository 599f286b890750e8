-- A tenant's lexical generation: a new random value in every transaction that adds or removes its
-- chunks, so a process holding the tenant's BM25 index in memory (content/lexical-cache.ts) can
-- tell with one primary-key probe that the index still describes the committed state. Random
-- rather than a counter: a tenant deleted and created again (or its rows truncated) starts no
-- count that an old index could match.
-- The triggers of 110 with the generation. They run on the table (one PostgreSQL) or on the shard
-- (Citus), where gen_random_uuid() is evaluated per statement as usual.
CREATE OR REPLACE FUNCTION lexical_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s AS s (tenant_id, chunks, total_length, generation)
      SELECT tenant_id, count(*), sum(lex_length), gen_random_uuid() FROM added GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id) DO UPDATE SET chunks = s.chunks + excluded.chunks, total_length = s.total_length + excluded.total_length,
      generation = excluded.generation
  $q$, quarry_colocated('lexical_stats', TG_TABLE_NAME, 'chunks'));
  EXECUTE format($q$
    INSERT INTO %s AS d (tenant_id, term, df)
      SELECT a.tenant_id, t.term, count(*) FROM added a, unnest(a.lex_terms) AS t(term)
      GROUP BY a.tenant_id, t.term ORDER BY a.tenant_id, t.term
    ON CONFLICT (tenant_id, term) DO UPDATE SET df = d.df + excluded.df
  $q$, quarry_colocated('lexical_df', TG_TABLE_NAME, 'chunks'));
  EXECUTE format($q$
    INSERT INTO %s (tenant_id, term, chunk_id, data_source_id, tf, lex_length)
      SELECT a.tenant_id, u.term, a.id, a.data_source_id, u.tf, a.lex_length
      FROM added a CROSS JOIN LATERAL unnest(a.lex_terms, a.lex_tfs) AS u(term, tf)
  $q$, quarry_colocated('lexical_postings', TG_TABLE_NAME, 'chunks'));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION lexical_chunks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stats TEXT := quarry_colocated('lexical_stats', TG_TABLE_NAME, 'chunks');
  df TEXT := quarry_colocated('lexical_df', TG_TABLE_NAME, 'chunks');
BEGIN
  EXECUTE format($q$
    UPDATE %s s SET chunks = s.chunks - x.n, total_length = s.total_length - x.len, generation = gen_random_uuid()
      FROM (SELECT tenant_id, count(*) AS n, sum(lex_length) AS len FROM removed GROUP BY tenant_id) x
      WHERE s.tenant_id = x.tenant_id
  $q$, stats);
  EXECUTE format($q$
    UPDATE %s d SET df = d.df - g.n
      FROM (SELECT r.tenant_id, t.term, count(*) AS n FROM removed r, unnest(r.lex_terms) AS t(term)
            GROUP BY r.tenant_id, t.term ORDER BY r.tenant_id, t.term) g
      WHERE d.tenant_id = g.tenant_id AND d.term = g.term
  $q$, df);
  EXECUTE format($q$
    DELETE FROM %s d
      USING (SELECT DISTINCT r.tenant_id, t.term FROM removed r, unnest(r.lex_terms) AS t(term)) g
      WHERE d.tenant_id = g.tenant_id AND d.term = g.term AND d.df <= 0
  $q$, df);
  EXECUTE format($q$
    DELETE FROM %s p
      USING (SELECT r.tenant_id, t.term, r.id FROM removed r, unnest(r.lex_terms) AS t(term)) g
      WHERE p.tenant_id = g.tenant_id AND p.term = g.term AND p.chunk_id = g.id
  $q$, quarry_colocated('lexical_postings', TG_TABLE_NAME, 'chunks'));
  RETURN NULL;
END $$;

-- After the functions: Citus cannot change a function in a transaction that has already run a
-- parallel operation on a distributed table (the column's DDL and the update are).
ALTER TABLE lexical_stats ADD COLUMN generation UUID;

-- existing tenants: any value unique to this migration will do (Citus refuses volatile functions
-- in an UPDATE of a distributed table; now() is stable)
UPDATE lexical_stats SET generation = md5(tenant_id || ':' || now()::text)::uuid;
