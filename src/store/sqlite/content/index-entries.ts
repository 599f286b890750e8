// Vector index entries of chunks. A virtual table cannot cascade from the chunks table, so every
// path that removes chunks goes through removeChunkEntries first. (Lexical entries, chunk_terms,
// cascade from chunks.)
import type { DB } from "../db.js";
import { vectorTable } from "./json.js";

export function vectorTables(db: DB): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vec\\_%' ESCAPE '\\' AND sql LIKE '%vec0%'").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
}

/** Deletes the vector entries of the chunks selected by `where` (a condition on chunks c). */
export function removeChunkEntries(db: DB, where: string, params: unknown[]): void {
  const ids = (db.prepare(`SELECT c.id FROM chunks c WHERE ${where}`).all(...params) as { id: number }[]).map((r) => r.id);
  if (ids.length === 0) return;
  for (const t of vectorTables(db)) {
    const del = db.prepare(`DELETE FROM ${t} WHERE chunk_id = ?`);
    for (const id of ids) del.run(BigInt(id));
  }
}

export function createVectorTable(db: DB, indexName: string, dimension: number): string {
  const t = vectorTable(indexName);
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 8192) throw new Error(`invalid dimension ${dimension}`);
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${t} USING vec0(
       chunk_id INTEGER PRIMARY KEY,
       embedding float[${dimension}] distance_metric=cosine,
       tenant_id TEXT PARTITION KEY,
       data_source_id TEXT
     )`,
  );
  return t;
}

export function vectorBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}
