-- Originals of documents kept in the database (store/postgres/files.ts), so API and worker
-- processes share no disk: a row per file and its bytes in chunks of at most 256 KiB, both
-- written in one transaction, so a file is whole or absent (also after a SIGKILL mid-write).
-- Distribution: both tables by tenant_id, co-located (the chunks' key starts with it).

CREATE TABLE stored_files (
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  document_id TEXT NOT NULL,
  -- '' for the placed file of the document; the version tag while staged (services/acceptance.ts)
  tag TEXT NOT NULL,
  -- the bytes' own id: placing a staged file renames its row and never copies the bytes
  blob_id TEXT NOT NULL,
  size BIGINT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, document_id, tag),
  UNIQUE (tenant_id, blob_id)
);
CREATE INDEX stored_files_staged ON stored_files (created_at) WHERE tag <> '';

CREATE TABLE stored_file_chunks (
  tenant_id TEXT NOT NULL,
  blob_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (tenant_id, blob_id, seq),
  FOREIGN KEY (tenant_id, blob_id) REFERENCES stored_files (tenant_id, blob_id) ON DELETE CASCADE
);
-- originals are mostly compressed already (PDF, DOCX, ZIP): out of line without a compression try
ALTER TABLE stored_file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
