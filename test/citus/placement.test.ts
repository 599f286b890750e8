// On the Citus cluster of `npm run test:citus`: `migrate` places every table as
// src/store/postgres/distribution.ts says (tenant tables hash-distributed by tenant_id in one
// co-location group, the search log by scope in another, small lookup tables as reference tables,
// the queues on the coordinator),
// a vector table created later joins the group, and a second migrate changes nothing.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { migrate } from "../../src/store/postgres/db.js";
import { DISTRIBUTION, placementSummary, SCOPE_ANCHOR } from "../../src/store/postgres/distribution.js";

describe.skipIf(CITUS_WORKERS.length === 0)("table placement on Citus", () => {
  let db: TestDatabase;
  let store: PostgresStore;

  beforeAll(async () => {
    db = await createTestDatabase("quarry_citus_place");
    store = await openPostgresStore(db.url, { poolSize: 2 });
    await store.content.ensureVectorIndex("quarry_test", 8);
  }, 120_000);

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  async function placements(): Promise<Map<string, { method: string; colocation: number }>> {
    const r = await store.pool.query<{ tbl: string; partmethod: string; colocationid: number; col: string | null }>(
      "SELECT logicalrelid::text AS tbl, partmethod, colocationid FROM pg_dist_partition",
    );
    return new Map(r.rows.map((x) => [x.tbl, { method: x.partmethod, colocation: x.colocationid }]));
  }

  it("distributes tenant tables together and replicates the lookup tables", async () => {
    const placed = await placements();
    const anchor = placed.get("collections")!;
    const log = placed.get(SCOPE_ANCHOR)!;
    expect(anchor.method).toBe("h");
    expect(log.method).toBe("h");
    expect(log.colocation).not.toBe(anchor.colocation);
    for (const [table, placement] of DISTRIBUTION) {
      const p = placed.get(table);
      if (placement === "tenant") expect(p, table).toEqual({ method: "h", colocation: anchor.colocation });
      if (placement === "scope") expect(p, table).toEqual({ method: "h", colocation: log.colocation });
      if (placement === "reference") expect(p?.method, table).toBe("n");
      // a queue with a foreign key to tenants becomes a Citus local table, still on the coordinator
      if (placement === "coordinator") expect(p === undefined || p.method === "n", table).toBe(true);
    }
    expect(placed.get("vec_quarry_test")).toEqual({ method: "h", colocation: anchor.colocation });
    const dist = await store.pool.query<{ t: string; c: string }>("SELECT logicalrelid::text AS t, column_to_column_name(logicalrelid, partkey) AS c FROM pg_dist_partition WHERE partmethod = 'h'");
    const column = new Map(DISTRIBUTION.map(([t, p]) => [t, p === "scope" ? "scope" : "tenant_id"]));
    for (const r of dist.rows) expect(r.c, r.t).toBe(column.get(r.t) ?? "tenant_id");
  });

  it("spreads the tenant shards over both workers", async () => {
    const r = await store.pool.query<{ nodeport: number }>(
      "SELECT DISTINCT nodeport FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid) WHERE s.logicalrelid = 'chunks'::regclass",
    );
    expect(r.rows.map((x) => x.nodeport).sort()).toEqual(CITUS_WORKERS.map((w) => w.port).sort());
  });

  it("sums the placement up for `quarry migrate`", async () => {
    const count = (p: string) => DISTRIBUTION.filter(([, x]) => x === p).length;
    expect(await placementSummary(store.pool)).toEqual({ distributed: count("tenant") + count("scope") + 1, reference: count("reference") });
  });

  it("migrates again without changes", async () => {
    const before = await placements();
    expect(await migrate(store.pool)).toEqual([]);
    expect(await placements()).toEqual(before);
  });
});
