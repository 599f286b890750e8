-- Content of the scale-out store: collections, data sources, documents, chunks with their lexical
-- entries, BM25 statistics per tenant, and the PostgreSQL-backed job queue. Every key and index
-- starts with tenant_id (the distribution column, docs/decisions.md) except the job queue's
-- claim-order indexes, which are cross-tenant by nature. JSON values are stored as text, as the
-- store interface carries them (key order kept as written). Vector tables are created per index
-- name at run time (content/vectors.ts), since the dimension is the index's.

CREATE TABLE collections (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX collections_tenant_created ON collections (tenant_id, created_at);

CREATE TABLE data_sources (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  source_type TEXT NOT NULL,
  configuration TEXT NOT NULL DEFAULT '{}',
  error TEXT,
  last_synced_at TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX data_sources_tenant_created ON data_sources (tenant_id, created_at);

CREATE TABLE collection_sources (
  tenant_id TEXT NOT NULL,
  collection_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  PRIMARY KEY (tenant_id, collection_id, data_source_id),
  FOREIGN KEY (tenant_id, collection_id) REFERENCES collections (tenant_id, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX collection_sources_source ON collection_sources (tenant_id, data_source_id);

CREATE TABLE documents (
  tenant_id TEXT NOT NULL,
  id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  title TEXT NOT NULL,
  source_type TEXT NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  kind TEXT,
  content_type TEXT,
  size_bytes BIGINT,
  content_hash TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  chunk_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, data_source_id, source),
  FOREIGN KEY (tenant_id, data_source_id) REFERENCES data_sources (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX documents_tenant_created ON documents (tenant_id, created_at DESC, id DESC);
CREATE INDEX documents_source_status ON documents (tenant_id, data_source_id, status);
-- recovery (documentsAwaitingIngest) scans all tenants for documents left queued/processing
CREATE INDEX documents_pending ON documents (updated_at) WHERE status IN ('queued', 'processing');

-- A chunk and its lexical entry in one row: lex_terms are the distinct analysed terms (the SQLite
-- engine's analyzer, lexical/analyze.ts), lex_tfs their packed title/headings/body counts and
-- lex_length the tokens of all fields (BM25's document length). lex_tsv holds the same terms as
-- lexemes for the GIN candidate lookup; the 'simple' parser never sees the text.
CREATE TABLE chunks (
  tenant_id TEXT NOT NULL,
  id BIGINT GENERATED ALWAYS AS IDENTITY,
  document_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  heading_path TEXT NOT NULL DEFAULT '[]',
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  embedded_in TEXT,
  lex_length INTEGER NOT NULL,
  lex_terms TEXT[] NOT NULL,
  lex_tfs INTEGER[] NOT NULL,
  lex_tsv TSVECTOR GENERATED ALWAYS AS (array_to_tsvector(lex_terms)) STORED,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX chunks_document_position ON chunks (tenant_id, document_id, position);
CREATE INDEX chunks_source ON chunks (tenant_id, data_source_id);
CREATE INDEX chunks_lexical ON chunks USING GIN (lex_tsv);
-- the vector backfill and storeEmbeddings address chunks by id alone (the interface's opaque id),
-- and take unembedded chunks in arrival order across tenants
CREATE INDEX chunks_id ON chunks (id);
CREATE INDEX chunks_unembedded ON chunks (tenant_id, id) WHERE embedded_in IS NULL;
CREATE INDEX chunks_unembedded_order ON chunks (id) WHERE embedded_in IS NULL;
CREATE INDEX chunks_pending_document ON chunks (tenant_id, document_id) WHERE embedded_in IS NULL;
CREATE INDEX chunks_pending_source ON chunks (tenant_id, data_source_id) WHERE embedded_in IS NULL;

-- Exact BM25 statistics of each tenant's live chunks, kept by statement triggers in the
-- transaction that writes the chunks (cascading deletes included), so a query reads N, the
-- average length and the document frequencies of its terms with a few index lookups.
CREATE TABLE lexical_stats (
  tenant_id TEXT PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  chunks BIGINT NOT NULL,
  total_length BIGINT NOT NULL
);
CREATE TABLE lexical_df (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  term TEXT NOT NULL,
  df INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, term)
);

-- The stats row is locked first, so writers of one tenant take the df rows one at a time
-- (no deadlock between two ingests of the tenant); df rows are then touched in term order.
CREATE FUNCTION lexical_chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lexical_stats AS s (tenant_id, chunks, total_length)
    SELECT tenant_id, count(*), sum(lex_length) FROM added GROUP BY tenant_id ORDER BY tenant_id
  ON CONFLICT (tenant_id) DO UPDATE SET chunks = s.chunks + excluded.chunks, total_length = s.total_length + excluded.total_length;
  INSERT INTO lexical_df AS d (tenant_id, term, df)
    SELECT a.tenant_id, t.term, count(*) FROM added a, unnest(a.lex_terms) AS t(term)
    GROUP BY a.tenant_id, t.term ORDER BY a.tenant_id, t.term
  ON CONFLICT (tenant_id, term) DO UPDATE SET df = d.df + excluded.df;
  RETURN NULL;
END $$;

-- Deletes only update: when a tenant is deleted its statistics rows may already be gone.
CREATE FUNCTION lexical_chunks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END $$;

CREATE TRIGGER chunks_lexical_added AFTER INSERT ON chunks
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION lexical_chunks_added();
CREATE TRIGGER chunks_lexical_removed AFTER DELETE ON chunks
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION lexical_chunks_removed();

-- Vector indexes by name (one table vec_<name> each, created by ensureVectorIndex).
CREATE TABLE vector_indexes (
  name TEXT PRIMARY KEY,
  dimension INTEGER NOT NULL,
  created_at TEXT NOT NULL
);

-- The PostgreSQL-backed job queue (jobs/embedded-queue.ts runs on it unchanged). Claims walk
-- queued jobs in id order across tenants, so jobs is keyed by its id; per-tenant access (fair
-- scheduling, caps) goes through jobs_tenant_order.
CREATE TABLE jobs (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'queued',
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  run_after TEXT NOT NULL,
  locked_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  owner TEXT,
  lease_until TEXT,
  cancel_requested BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX jobs_claim_order ON jobs (id) WHERE status = 'queued';
CREATE INDEX jobs_tenant_order ON jobs (tenant_id, status, id);
CREATE INDEX jobs_subject ON jobs (subject, kind);
CREATE INDEX jobs_running_owner ON jobs (owner) WHERE status = 'running';
-- One running job per subject and kind, also between processes that claim at the same instant
-- (the claim's NOT EXISTS cannot see another transaction's uncommitted claim; this index can).
CREATE UNIQUE INDEX jobs_one_running ON jobs (subject, kind) WHERE status = 'running';
