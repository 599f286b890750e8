-- Triggers and keys that a Citus cluster accepts (docs/decisions.md, "Distribution on Citus"), with
-- the same behaviour on one PostgreSQL.
--
-- On Citus a trigger fires on the shard (chunks_102008 on a worker), where a statement naming a
-- distributed table would be planned again by Citus, without the trigger's transition tables.
-- So the triggers write to the shards of the same tenant's rows by name: the target's shard of
-- the same hash range, co-located on this node (Citus moves co-located shards together). On one
-- PostgreSQL the trigger fires on the table itself and writes to the tables themselves.
CREATE FUNCTION quarry_colocated(target TEXT, fired_on TEXT, base TEXT) RETURNS TEXT LANGUAGE plpgsql STABLE AS $$
DECLARE
  shard BIGINT;
BEGIN
  IF fired_on = base THEN
    RETURN quote_ident(target);
  END IF;
  -- a shard is named <table>_<shard id>; pg_dist_shard exists only with Citus (dynamic SQL)
  EXECUTE 'SELECT t.shardid FROM pg_dist_shard s JOIN pg_dist_shard t ON t.logicalrelid = $1::regclass AND t.shardminvalue = s.shardminvalue WHERE s.shardid = $2'
    INTO shard USING target, substring(fired_on FROM length(base) + 2)::BIGINT;
  IF shard IS NULL THEN
    RAISE EXCEPTION 'no shard of % beside %', target, fired_on;
  END IF;
  RETURN quote_ident(target || '_' || shard);
END $$;

CREATE OR REPLACE FUNCTION lexical_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s AS s (tenant_id, chunks, total_length)
      SELECT tenant_id, count(*), sum(lex_length) FROM added GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id) DO UPDATE SET chunks = s.chunks + excluded.chunks, total_length = s.total_length + excluded.total_length
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
    UPDATE %s s SET chunks = s.chunks - x.n, total_length = s.total_length - x.len
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

-- Citus refuses ON DELETE SET NULL on a foreign key that holds the distribution column, so a
-- crawled page forgets its deleted document through a trigger, and the key checks without an
-- action. A page row still outlives its document, with document_id NULL (100_crawls.sql).
ALTER TABLE crawl_pages DROP CONSTRAINT crawl_pages_tenant_id_document_id_fkey;

CREATE FUNCTION crawl_pages_forget_document() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE %s SET document_id = NULL WHERE tenant_id = $1 AND document_id = $2',
    quarry_colocated('crawl_pages', TG_TABLE_NAME, 'documents')) USING OLD.tenant_id, OLD.id;
  RETURN OLD;
END $$;

-- BEFORE: the key's check at the end of the statement then finds no page naming the document
CREATE TRIGGER documents_forget_crawl_pages BEFORE DELETE ON documents
  FOR EACH ROW EXECUTE FUNCTION crawl_pages_forget_document();

ALTER TABLE crawl_pages ADD CONSTRAINT crawl_pages_document_fkey
  FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id);
