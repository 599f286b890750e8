-- Per-tenant lexical index (docs/decisions.md, "Lexical index"). The shared FTS5 table pooled
-- BM25 statistics over every tenant and kept deleted rows in them; it is replaced by one row of
-- analysed terms per chunk, from which each process keeps an in-memory BM25 index per tenant.
DROP TABLE IF EXISTS chunks_fts;

CREATE TABLE chunk_terms (
  chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  tenant_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  -- tokens in title, headings and body together (BM25 document length)
  length INTEGER NOT NULL,
  -- distinct stemmed terms, space separated, and their packed field counts (uint16 each, same order)
  terms TEXT NOT NULL,
  tfs BLOB NOT NULL
);
CREATE INDEX chunk_terms_tenant ON chunk_terms(tenant_id, chunk_id);

-- Every change to chunk_terms, in commit order: in-memory indexes catch up from here before each
-- query, so they see exactly the committed state (also of other processes on this file). A removed
-- chunk's terms are kept here because its document frequencies come off the statistics.
CREATE TABLE lexical_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  chunk_id INTEGER NOT NULL,
  op INTEGER NOT NULL,
  terms TEXT
);
-- 'floor': highest pruned seq (an index behind it reloads); 'backfilled': chunk_terms covers all chunks
CREATE TABLE lexical_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);

CREATE TRIGGER chunk_terms_added AFTER INSERT ON chunk_terms BEGIN
  INSERT INTO lexical_log (tenant_id, chunk_id, op) VALUES (new.tenant_id, new.chunk_id, 1);
END;
CREATE TRIGGER chunk_terms_removed AFTER DELETE ON chunk_terms BEGIN
  INSERT INTO lexical_log (tenant_id, chunk_id, op, terms) VALUES (old.tenant_id, old.chunk_id, -1, old.terms);
END;

-- Keep the last 100,000 changes; a process further behind reloads its tenants (floor > its cursor).
CREATE TRIGGER lexical_log_prune AFTER INSERT ON lexical_log WHEN new.seq % 10000 = 0 BEGIN
  DELETE FROM lexical_log WHERE seq <= new.seq - 100000;
  INSERT OR REPLACE INTO lexical_meta (key, value) VALUES ('floor', new.seq - 100000);
END;
