// The SQL side of one embedding index's graphs: the vector_changes log that triggers on `chunks`
// write (the graphs follow it), and point reads of the vec0 table (the source of truth).
import type { DB } from "../db.js";
import { vectorTable } from "./json.js";

export interface Change {
  seq: number;
  tenant_id: string;
  data_source_id: string;
  chunk_id: number;
  op: number;
}

export interface SourceCount {
  tenant_id: string;
  data_source_id: string;
  n: number;
}

export type AnnLog = ReturnType<typeof annLog>;

export function annLog(db: DB, indexName: string) {
  const table = vectorTable(indexName);
  // the AUTOINCREMENT counter, not max(seq): pruning may empty the log, the counter never goes back
  const maxSeq = db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'vector_changes'), 0) AS m").pluck();
  const prunedThrough = db.prepare("SELECT pruned_through AS p FROM vector_log_state WHERE id = 1").pluck();
  const changesSince = db.prepare(
    "SELECT seq, tenant_id, data_source_id, chunk_id, op FROM vector_changes WHERE index_name = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
  );
  const partitionChanges = db.prepare(
    `SELECT seq, tenant_id, data_source_id, chunk_id, op FROM vector_changes
     WHERE index_name = ? AND tenant_id = ? AND data_source_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
  );
  const laggingSources = db.prepare("SELECT DISTINCT tenant_id, data_source_id FROM vector_changes WHERE index_name = ? AND seq > ?");
  const storedCounts = db.prepare("SELECT tenant_id, data_source_id, count(*) AS n FROM chunks WHERE embedded_in = ? GROUP BY 1, 2");
  const storedIds = db.prepare("SELECT id FROM chunks WHERE embedded_in = ? AND tenant_id = ? AND data_source_id = ? ORDER BY id").pluck();
  const vectorOf = db.prepare(`SELECT embedding FROM ${table} WHERE chunk_id = ?`).pluck();
  const distanceOf = db.prepare(`SELECT vec_distance_cosine(embedding, ?) AS d FROM ${table} WHERE chunk_id = ?`).pluck();
  const prune = db.transaction((through: number) => {
    db.prepare("DELETE FROM vector_changes WHERE seq <= ?").run(through);
    db.prepare("UPDATE vector_log_state SET pruned_through = max(pruned_through, ?) WHERE id = 1").run(through);
  });

  return {
    maxSeq: (): number => maxSeq.get() as number,
    prunedThrough: (): number => prunedThrough.get() as number,
    changesSince: (from: number, to: number, limit: number) => changesSince.all(indexName, from, to, limit) as Change[],
    partitionChanges: (tenantId: string, sourceId: string, from: number, to: number) =>
      partitionChanges.all(indexName, tenantId, sourceId, from, to) as Change[],
    laggingSources: (from: number) => laggingSources.all(indexName, from) as { tenant_id: string; data_source_id: string }[],
    storedCounts: () => storedCounts.all(indexName) as SourceCount[],
    /** the log position and the chunk ids of one source, from one snapshot */
    snapshot: db.transaction((tenantId: string, sourceId: string) => ({
      seq: maxSeq.get() as number,
      ids: storedIds.all(indexName, tenantId, sourceId) as number[],
    })),
    vectorOf: (chunkId: number) => vectorOf.get(BigInt(chunkId)) as Buffer | undefined,
    distanceOf: (query: Buffer, chunkId: number) => distanceOf.get(query, BigInt(chunkId)) as number | undefined,
    prune: (through: number) => prune(through),
  };
}
