-- Every change to a document row, in commit order (docs/decisions.md, "Filters in memory"): the
-- in-memory filter columns of each process (content/filter-table.ts) catch up from here before a
-- filtered search or a facet count, as the BM25 indexes do from lexical_log. A document's chunks
-- change only in a transaction that also updates its row (document-index.ts, documents.ts), and
-- data source and tenant deletions reach documents by cascade, which fires these triggers too.
CREATE TABLE document_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  document_id TEXT NOT NULL
);
-- 'floor': highest pruned seq (a process behind it reloads its tables)
CREATE TABLE document_log_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);

CREATE TRIGGER document_log_inserted AFTER INSERT ON documents BEGIN
  INSERT INTO document_log (tenant_id, document_id) VALUES (new.tenant_id, new.id);
END;
CREATE TRIGGER document_log_updated AFTER UPDATE ON documents BEGIN
  INSERT INTO document_log (tenant_id, document_id) VALUES (new.tenant_id, new.id);
END;
CREATE TRIGGER document_log_deleted AFTER DELETE ON documents BEGIN
  INSERT INTO document_log (tenant_id, document_id) VALUES (old.tenant_id, old.id);
END;

-- Keep the last 100,000 changes, as lexical_log does.
CREATE TRIGGER document_log_prune AFTER INSERT ON document_log WHEN new.seq % 10000 = 0 BEGIN
  DELETE FROM document_log WHERE seq <= new.seq - 100000;
  INSERT OR REPLACE INTO document_log_meta (key, value) VALUES ('floor', new.seq - 100000);
END;
