// On the Citus cluster of `npm run test:citus`: PostgreSQL's HNSW walk (vector-search.ts
// graphSearch) runs on the worker that holds the tenant's shard, and its settings (ef_search, the
// iterative scan, the plans it rules out) must reach that worker. Citus keeps a SET LOCAL on the
// coordinator unless told to send it. Without it the worker walked with its own defaults, and a
// k above 40 or a selective filter came back short whenever the worker's planner chose the graph
// (it did in CI once its statistics said so: content-filter.test.ts saw 3 of 10).
// Here the workers' databases are set to choose the graph for every ordered vector scan, so the
// walk's own settings decide; the answers are held to the exact scan of the same store.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { nodeUrl, onNode } from "../../src/evaluation/bench/citus.js";
import { createPool, migrate, type Pool } from "../../src/store/postgres/db.js";
import { postgresContent } from "../../src/store/postgres/content/index.js";
import type { ContentStore } from "../../src/store/content-store.js";
import { parseFilter } from "../../src/search/filter/parse.js";
import { prng } from "../../src/evaluation/bench/scale/rng.js";
import { randomUnit } from "../../src/evaluation/bench/scale/vectors.js";

const TENANT = "t";
const SOURCE = "t-src";
const DOCS = 120;

/** deterministic unit vectors, 8 dimensions */
function vectors(seed: number, n: number): Float32Array[] {
  const next = prng(seed);
  return Array.from({ length: n }, () => randomUnit(8, next));
}

describe.skipIf(CITUS_WORKERS.length === 0)("the HNSW walk on Citus", () => {
  let db: TestDatabase;
  let pool: Pool;
  let graph: ContentStore;
  let exact: ContentStore;

  beforeAll(async () => {
    db = await createTestDatabase("quarry_citus_graph");
    const migrating = createPool(db.url, { max: 1 });
    await migrate(migrating);
    await migrating.end();
    // each session opened on the workers from here on starts with these (Citus
    // takes ALTER DATABASE on the coordinator only, and sends it on to the workers)
    await onNode(db.url, ["enable_seqscan", "enable_sort", "enable_bitmapscan"].map((s) => `ALTER DATABASE ${db.name} SET ${s} = off`));
    for (const w of CITUS_WORKERS) {
      const c = new pg.Client({ connectionString: nodeUrl(PG_ADMIN_URL, w, db.name) });
      await c.connect();
      const r = await c.query<{ setconfig: string[] }>("SELECT setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = $1", [db.name]);
      await c.end();
      expect(r.rows[0]?.setconfig, `worker ${w.port}`).toEqual(expect.arrayContaining(["enable_seqscan=off", "enable_sort=off"]));
    }
    pool = createPool(db.url, { max: 4 });
    graph = postgresContent(pool, { vectors: { exactBelow: 0, graphFrom: 0 } });
    exact = postgresContent(pool, { vectors: { exactBelow: 1_000_000 } });
    await pool.query("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES ($1, $1, $1, 'free', TRUE, $2)", [TENANT, new Date().toISOString()]);
    const at = new Date().toISOString();
    await graph.createSource({ id: SOURCE, tenant_id: TENANT, name: "src", source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: at }, [], null);
    await graph.ensureVectorIndex("walk", 8);
    const vs = vectors(11, DOCS);
    // one chunk a document; one document in 12 on the "rare" shelf (10 of 120)
    const docs = vs.map((_, i) => ({ id: `d${i}`, source: `d${i}.txt`, title: `Doc ${i}`, source_type: "upload" as const, kind: "text", content_type: null, size_bytes: 1, content_hash: `d${i}`, metadata: { shelf: i % 12 === 0 ? "rare" : "common" } }));
    await graph.upsertDocuments(TENANT, SOURCE, docs, null);
    for (const [i, d] of docs.entries()) {
      const chunks = [{ position: 0, text: `doc ${i}`, heading_path: [], token_count: 2, metadata: {} }];
      await graph.replaceDocumentIndex(TENANT, d.id, { title: d.title, metadata: d.metadata }, chunks, { indexName: "walk", values: [vs[i]!] });
    }
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("finds as many rows as the exact scan for a k above the workers' ef_search (40)", async () => {
    const [probe] = vectors(12, 1);
    const want = await exact.vectorSearch("walk", TENANT, [SOURCE], probe!, 100);
    expect(want).toHaveLength(100);
    const got = await graph.vectorSearch("walk", TENANT, [SOURCE], probe!, 100);
    expect(got.map((h) => h.chunkId)).toEqual(want.map((h) => h.chunkId));
  });

  it("walks on past the filtered-out rows until k pass a selective filter", async () => {
    const filter = parseFilter({ "metadata.shelf": { $eq: "rare" } });
    for (const [i, probe] of vectors(13, 5).entries()) {
      const want = await exact.vectorSearch("walk", TENANT, [SOURCE], probe, 8, filter);
      expect(want, `probe ${i}`).toHaveLength(8);
      const got = await graph.vectorSearch("walk", TENANT, [SOURCE], probe, 8, filter);
      expect(got.map((h) => h.chunkId), `probe ${i}`).toEqual(want.map((h) => h.chunkId));
    }
  });
});
