CREATE TABLE collections (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL
);
CREATE INDEX collections_tenant ON collections(tenant_id, created_at);

CREATE TABLE data_sources (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  source_type TEXT NOT NULL,
  configuration TEXT NOT NULL DEFAULT '{}',
  -- last sync error (a failed crawl); document-level errors live on documents
  error TEXT,
  last_synced_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX data_sources_tenant ON data_sources(tenant_id, created_at);

CREATE TABLE collection_sources (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  PRIMARY KEY (collection_id, data_source_id)
);
CREATE INDEX collection_sources_source ON collection_sources(data_source_id);

CREATE TABLE documents (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL REFERENCES data_sources(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  source_type TEXT NOT NULL,
  -- file name for uploads, URL for crawled pages; unique within a source (re-upload replaces)
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  kind TEXT,
  content_type TEXT,
  size_bytes INTEGER,
  content_hash TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  chunk_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (data_source_id, source)
);
CREATE INDEX documents_tenant_created ON documents(tenant_id, created_at DESC);
CREATE INDEX documents_source_status ON documents(data_source_id, status);

-- AUTOINCREMENT: a deleted chunk's id is never handed to a new chunk (ids appear in API answers).
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  data_source_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  heading_path TEXT NOT NULL DEFAULT '[]',
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  -- name of the vector index holding this chunk's embedding; NULL = not embedded yet
  embedded_in TEXT
);
CREATE UNIQUE INDEX chunks_document_position ON chunks(document_id, position);
CREATE INDEX chunks_unembedded ON chunks(tenant_id) WHERE embedded_in IS NULL;

-- Lexical index. Contentless (the text lives in chunks) with delete support; title and heading
-- path are their own columns so BM25 can weight them up.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  title, headings, body,
  content='', contentless_delete=1,
  tokenize='porter unicode61 remove_diacritics 2'
);

-- Durable job queue of the embedded mode.
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  -- the resource the job works on (document id, crawl id, ...): one live job per subject
  subject TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'queued',
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 5,
  run_after TEXT NOT NULL,
  locked_at TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX jobs_ready ON jobs(status, run_after, id);
CREATE INDEX jobs_subject ON jobs(subject);
