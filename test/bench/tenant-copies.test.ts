// The Citus bench's fast fill (tenant-copies.ts) on a real PostgreSQL: a tenant copied in SQL
// searches like its source (same documents, same lexical scores, its own postings and statistics),
// holds vectors of its own for every chunk, and the HNSW graph deferred for the load comes back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../src/runtime.js";
import { openBenchRuntime } from "../../src/evaluation/bench/load.js";
import { buildCorpus } from "../../src/evaluation/bench/scale/corpus.js";
import { dfSample } from "../../src/evaluation/bench/scale/queries.js";
import { syntheticVectors } from "../../src/evaluation/bench/scale/vector-source.js";
import { loadLayout, type Loaded } from "../../src/evaluation/bench/scale/loader.js";
import { createBenchTenant, searchInProcess } from "../../src/evaluation/bench/scale/adapter.js";
import { copyTenants, deferGraph } from "../../src/evaluation/bench/tenant-copies.js";
import { vectorTable } from "../../src/store/json.js";
import { stoneTexts } from "../helpers/stone-texts.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";

/** 30 small documents with varied vocabulary, as if read from disk */
const texts = stoneTexts(30);

const skip = await pgUnavailableReason();
if (skip) console.warn(`tenant-copies.test: skipped: ${skip}`);

let db: TestDatabase;
let dir: string;
let rt: Runtime;
let loaded: Loaded;
let client: pg.Client;
let graphBuilt = false;

describe.skipIf(skip !== null)("bench tenant copies", () => {
  beforeAll(async () => {
    db = await createTestDatabase("quarry_copies");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-copies-"));
    rt = await openBenchRuntime(dir, () => {}, { DATABASE_URL: db.url });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const indexName = rt.activeProfile.index_name!;
    const graph = await deferGraph(db.url, indexName);
    const corpus = buildCorpus(texts, 1);
    const vectors = syntheticVectors(rt.activeProfile.dimension, 4, 1);
    loaded = await loadLayout(rt, corpus, { label: "1 x 60", tenants: 1, chunksPerTenant: 60 }, vectors, dfSample(corpus.real.flatMap((d) => d.chunks)), { queries: 10, seed: 1, filters: false });
    for (let t = 1; t < 3; t++) loaded.tenants.push(await createBenchTenant(rt, `copy ${t}`));
    await copyTenants(db.url, loaded, 1, indexName, vectors, () => {});
    await graph.build();
    graphBuilt = true;
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await rt?.close();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives each copy its source's documents and chunks, with its own statistics and postings", async () => {
    expect(loaded.chunks).toBe(180);
    const counts = await client.query<{ tenant_id: string; n: number }>("SELECT tenant_id, chunks::int AS n FROM lexical_stats");
    const byTenant = new Map(counts.rows.map((r) => [r.tenant_id, r.n]));
    const postings = await client.query<{ tenant_id: string; n: number }>("SELECT tenant_id, count(*)::int AS n FROM lexical_postings GROUP BY tenant_id");
    const postingsOf = new Map(postings.rows.map((r) => [r.tenant_id, r.n]));
    for (const t of loaded.tenants) {
      expect(byTenant.get(t.id)).toBe(60);
      expect(postingsOf.get(t.id)).toBe(postingsOf.get(loaded.tenants[0]!.id));
      const c = await rt.store.content.getCollection(t.id, t.allCollectionId);
      expect(c!.document_count).toBe(loaded.docs.length);
    }
  });

  it("a copy answers a lexical search as its source does", async () => {
    for (const q of loaded.queries.slice(0, 5)) {
      const [a, b] = await Promise.all([0, 2].map((t) => searchInProcess(rt, loaded.tenants[t]!, loaded.tenants[t]!.allCollectionId, q.text, "lexical")));
      expect(a!.keys.length).toBeGreaterThan(0);
      // the same hits; ties may order differently (the copy's chunk ids are other numbers)
      expect([...b!.keys].sort()).toEqual([...a!.keys].sort());
    }
  });

  it("gives every copied chunk a vector of its own, and builds the deferred graph", async () => {
    const table = vectorTable(rt.activeProfile.index_name!);
    const r = await client.query<{ tenant_id: string; n: number }>(
      `SELECT c.tenant_id, count(v.chunk_id)::int AS n FROM chunks c LEFT JOIN ${table} v ON v.tenant_id = c.tenant_id AND v.chunk_id = c.id GROUP BY c.tenant_id`,
    );
    expect(r.rows.map((x) => x.n)).toEqual([60, 60, 60]);
    const distinct = await client.query<{ n: number; d: number }>(`SELECT count(*)::int AS n, count(DISTINCT embedding::text)::int AS d FROM ${table}`);
    expect(distinct.rows[0]).toEqual({ n: 180, d: 180 });
    expect(graphBuilt).toBe(true);
    const idx = await client.query("SELECT indexdef FROM pg_indexes WHERE indexname = $1", [`${table}_hnsw`]);
    expect(idx.rows[0]?.indexdef).toMatch(/hnsw/);
  });
});
