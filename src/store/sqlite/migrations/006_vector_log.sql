-- Change log of chunk vectors. The in-process HNSW graphs (content/ann.ts) follow it: every
-- vector added, replaced or removed in any index is one row, written by triggers in the same
-- transaction as the change, so no code path that touches chunks can leave a graph behind
-- (cascading deletes included). A graph saved at seq S is repaired at start by replaying S+1..;
-- rows are pruned once every saved graph has passed them.
CREATE TABLE vector_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  index_name TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  data_source_id TEXT NOT NULL,
  chunk_id INTEGER NOT NULL,
  -- 1: the chunk has a (new) vector in index_name; 0: it no longer has one
  op INTEGER NOT NULL
);
CREATE INDEX vector_changes_partition ON vector_changes(index_name, tenant_id, data_source_id, seq);

-- highest seq removed from vector_changes: a graph saved before it cannot be replayed
CREATE TABLE vector_log_state (id INTEGER PRIMARY KEY CHECK (id = 1), pruned_through INTEGER NOT NULL);
INSERT INTO vector_log_state (id, pruned_through) VALUES (1, 0);

CREATE TRIGGER chunks_vector_insert AFTER INSERT ON chunks WHEN NEW.embedded_in IS NOT NULL BEGIN
  INSERT INTO vector_changes (index_name, tenant_id, data_source_id, chunk_id, op)
  VALUES (NEW.embedded_in, NEW.tenant_id, NEW.data_source_id, NEW.id, 1);
END;

CREATE TRIGGER chunks_vector_update AFTER UPDATE OF embedded_in ON chunks BEGIN
  INSERT INTO vector_changes (index_name, tenant_id, data_source_id, chunk_id, op)
  SELECT OLD.embedded_in, OLD.tenant_id, OLD.data_source_id, OLD.id, 0 WHERE OLD.embedded_in IS NOT NULL;
  INSERT INTO vector_changes (index_name, tenant_id, data_source_id, chunk_id, op)
  SELECT NEW.embedded_in, NEW.tenant_id, NEW.data_source_id, NEW.id, 1 WHERE NEW.embedded_in IS NOT NULL;
END;

CREATE TRIGGER chunks_vector_delete AFTER DELETE ON chunks WHEN OLD.embedded_in IS NOT NULL BEGIN
  INSERT INTO vector_changes (index_name, tenant_id, data_source_id, chunk_id, op)
  VALUES (OLD.embedded_in, OLD.tenant_id, OLD.data_source_id, OLD.id, 0);
END;

-- chunks still waiting for a vector, counted per document and per data source for their statuses
CREATE INDEX chunks_pending_vectors_document ON chunks(document_id) WHERE embedded_in IS NULL;
CREATE INDEX chunks_pending_vectors_source ON chunks(data_source_id) WHERE embedded_in IS NULL;
