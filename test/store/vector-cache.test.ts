// The SQLite store's cache of vectors for filtered exact scans (vector-cache.ts): its scores and
// order are vec0's own, whether a vector comes from disk or from the cache, and it keeps to its
// byte budget, dropping the least recently used first.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { openDatabase, type DB } from "../../src/store/sqlite/db.js";
import { createVectorTable, vectorBytes } from "../../src/store/sqlite/content/index-entries.js";
import { VectorCache } from "../../src/store/sqlite/content/vector-cache.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setUp(n: number, dim: number): { db: DB; table: string; vectors: Float32Array[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-vcache-"));
  dirs.push(dir);
  const db = openDatabase(path.join(dir, "q.db"));
  const table = createVectorTable(db, "cache_vec", dim);
  const vectors = Array.from({ length: n }, (_, i) => new Float32Array(Array.from({ length: dim }, (_, j) => Math.sin(i * 7 + j * 3) + (j === i % dim ? 1 : 0))));
  const ins = db.prepare(`INSERT INTO ${table} (chunk_id, embedding, tenant_id, data_source_id) VALUES (?, ?, ?, 's')`);
  vectors.forEach((v, i) => ins.run(BigInt(i + 1), vectorBytes(v), i < n - 5 ? "t" : "other"));
  return { db, table, vectors };
}

it("scores as vec0 does, from disk and from the cache alike, and never crosses tenants", () => {
  const { db, table } = setUp(60, 8);
  const cache = new VectorCache();
  const query = new Float32Array([0.3, -1, 0.2, 0.9, 0, 0.1, -0.4, 0.7]);
  const ids = Array.from({ length: 60 }, (_, i) => i + 1).filter((i) => i % 3 !== 0);
  const expected = (db.prepare(
    `SELECT chunk_id AS id, 1 - vec_distance_cosine(embedding, ?) AS score FROM ${table}
     WHERE chunk_id IN (SELECT value FROM json_each(?)) AND tenant_id = 't' ORDER BY score DESC, chunk_id LIMIT 10`,
  ).all(vectorBytes(query), JSON.stringify(ids)) as { id: number; score: number }[]);
  for (const round of ["disk", "cache"]) {
    const got = cache.nearest(db, "cache_vec", "t", ids, query, 10);
    expect(got.map((h) => h.chunkId), round).toEqual(expected.map((r) => String(r.id)));
    got.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 5));
  }
  // the other tenant's chunks (56-60) are not answered for this tenant, from disk or cache
  expect(cache.nearest(db, "cache_vec", "other", [56, 57, 58, 59, 60], query, 10)).toHaveLength(5);
  expect(cache.nearest(db, "cache_vec", "t", [57, 58], query, 10)).toEqual([]);
  db.close();
});

it("keeps to its byte budget, the least recently used out first", () => {
  const { db, table } = setUp(40, 4);
  const cache = new VectorCache(10 * 16); // ten 4-dimension vectors
  const q = new Float32Array([1, 0, 0, 0]);
  cache.nearest(db, "cache_vec", "t", Array.from({ length: 30 }, (_, i) => i + 1), q, 5);
  expect(cache.memoryBytes()).toBeLessThanOrEqual(160);
  expect(cache.memoryBytes()).toBeGreaterThan(0);
  db.prepare(`DELETE FROM ${table} WHERE chunk_id IN (1, 2, 30)`).run();
  // 21-30 were read last and are still held; 1 and 2 were dropped, and are gone from disk now
  expect(cache.nearest(db, "cache_vec", "t", [1, 2, 30], q, 3).map((h) => h.chunkId)).toEqual(["30"]);
  db.close();
});
