// On the Citus cluster of `npm run test:citus`: the migrations after the schema that first ran on
// Citus (BASELINE) run on a cluster already distributed, one release at a time, as an operator's
// upgrades do, rather than on the plain tables of a fresh database that migrate() distributes at
// the end (what every other suite here sees). After each, every table is placed as the plan says;
// at the end every shard has its table's columns and indexes, and the schema is the one a fresh
// database gets. A new migration joins this test by existing.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { createPool, migrate, type Pool } from "../../src/store/postgres/db.js";
import { DISTRIBUTION, SCOPE_PLACEMENT_FROM } from "../../src/store/postgres/distribution.js";

/** the schema of the first Citus deployments (the plan was first proven on a cluster there) */
const BASELINE = "115_search_analytics.sql";
const LATER = fs
  .readdirSync(path.join(import.meta.dirname, "../../src/store/postgres/migrations"))
  .filter((f) => /^\d+_.*\.sql$/.test(f) && f > BASELINE)
  .sort();

/** table -> "h" (hash) / "n" (reference or coordinator-local) / "-" (plain) */
async function placements(pool: Pool): Promise<Map<string, string>> {
  const r = await pool.query<{ tbl: string; m: string }>(
    `SELECT t.tablename AS tbl, coalesce(p.partmethod::text, '-') AS m FROM pg_tables t
     LEFT JOIN pg_dist_partition p ON p.logicalrelid = to_regclass(t.tablename) WHERE t.schemaname = 'public'`,
  );
  return new Map(r.rows.map((x) => [x.tbl, x.m]));
}

/**
 * What a fresh database and an upgraded one must agree on: columns, indexes, constraints and
 * triggers of the tables (the coordinator's own shards, named <table>_<shard id>, left out).
 */
async function schema(pool: Pool): Promise<string[]> {
  const r = await pool.query<{ tbl: string; line: string }>(
    `SELECT table_name::text AS tbl, format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, coalesce(column_default, '')) AS line
       FROM information_schema.columns WHERE table_schema = 'public'
     UNION ALL SELECT tablename, 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
     UNION ALL SELECT conrelid::regclass::text, format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint WHERE connamespace = 'public'::regnamespace
     UNION ALL SELECT tgrelid::regclass::text, format('trigger %s %s', tgrelid::regclass, tgname) FROM pg_trigger WHERE NOT tgisinternal
     ORDER BY 2`,
  );
  return r.rows.filter((x) => !/_\d{6,}$/.test(x.tbl)).map((x) => x.line);
}

/** a search of the baseline tenant in the log as migration 125 left it (the Citus local tables on the coordinator) */
async function logRows(pool: Pool): Promise<{ scope: number; query: number }> {
  const scope = (await pool.query<{ id: number }>("INSERT INTO analytics_scopes (tenant_id, collection_id) VALUES ('ten_upg', 'col_upg') RETURNING id")).rows[0]!.id;
  const query = (await pool.query<{ id: number }>("INSERT INTO analytics_queries (scope, text) VALUES ($1, 'gearbox oil') RETURNING id", [scope])).rows[0]!.id;
  await pool.query("INSERT INTO search_events (id, scope, query_id, actor, hits, top_score, took_ms, kind, origin, mode, filter, top) VALUES (12345 << 21, $1, $2, 0, 3, 900000, 12, 0, 0, 0, '', '')", [scope, query]);
  await pool.query("INSERT INTO query_daily (scope, day, query_id, searches, zero_results, low_score, origin) VALUES ($1, 0, $2, 1, 0, 0, 0)", [scope, query]);
  return { scope, query };
}

/** the log's rows read back from the shards by (scope, id), the coordinator's copies gone, new query ids after the old ones */
async function expectLogDistributed(pool: Pool, logged: { scope: number; query: number }): Promise<void> {
  const r = await pool.query(
    `SELECT q.text, s.took_ms FROM search_events s JOIN analytics_queries q ON q.scope = s.scope AND q.id = s.query_id
     JOIN query_daily d ON d.scope = s.scope AND d.query_id = s.query_id WHERE s.scope = $1`,
    [logged.scope],
  );
  expect(r.rows).toEqual([{ text: "gearbox oil", took_ms: 12 }]);
  const local = await pool.query<{ b: string }>("SELECT sum(pg_relation_size(t::regclass))::text AS b FROM unnest(ARRAY['search_events', 'analytics_queries', 'query_daily']) AS t");
  expect(local.rows[0]!.b).toBe("0");
  const next = await pool.query<{ id: number }>("INSERT INTO analytics_queries (scope, text) VALUES ($1, 'blade erosion') RETURNING id", [logged.scope]);
  expect(next.rows[0]!.id).toBeGreaterThan(logged.query);
}

describe.skipIf(CITUS_WORKERS.length === 0)("upgrading a distributed database on Citus", () => {
  let upgraded: TestDatabase;
  let fresh: TestDatabase;
  let pool: Pool;
  let freshPool: Pool;

  beforeAll(async () => {
    [upgraded, fresh] = await Promise.all([createTestDatabase("quarry_citus_upg"), createTestDatabase("quarry_citus_new")]);
    pool = createPool(upgraded.url, { max: 2 });
    freshPool = createPool(fresh.url, { max: 2 });
    await migrate(freshPool);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await freshPool?.end();
    await upgraded?.drop();
    await fresh?.drop();
  });

  it("distributes the baseline schema", async () => {
    await migrate(pool, { through: BASELINE });
    const placed = await placements(pool);
    expect(placed.get("chunks")).toBe("h");
    expect(placed.get("tenants")).toBe("n");
    // a baseline row, which the later migrations must carry (a new column on every shard)
    await pool.query("INSERT INTO tenants (id, name, slug, created_at) VALUES ('ten_upg', 'Upgraded', 'upgraded', now()::text)");
    await pool.query("INSERT INTO collections (tenant_id, id, name, created_at) VALUES ('ten_upg', 'col_upg', 'Docs', now()::text)");
  });

  it.each(LATER)("runs %s on the distributed cluster and places what it adds", async (file) => {
    const logged = file === SCOPE_PLACEMENT_FROM ? await logRows(pool) : null;
    expect(await migrate(pool, { through: file })).toEqual([file]);
    if (logged) await expectLogDistributed(pool, logged);
    const placed = await placements(pool);
    for (const [table, placement] of DISTRIBUTION) {
      const m = placed.get(table);
      if (m === undefined) continue; // made by a later migration
      if (placement === "tenant") expect(m, table).toBe("h");
      if (placement === "reference") expect(m, table).toBe("n");
      // the search log: Citus local tables on the coordinator (as the first deployments had it)
      // until the migration that keys it by scope, distributed by the migrate that applies it
      if (placement === "scope") expect(m, table).toBe(file >= SCOPE_PLACEMENT_FROM ? "h" : "n");
    }
  });

  it("leaves every shard with its table's columns and indexes", async () => {
    const admin = new pg.Client({ connectionString: upgraded.url });
    await admin.connect();
    try {
      const tables = await admin.query<{ tbl: string }>("SELECT logicalrelid::text AS tbl FROM pg_dist_partition WHERE partmethod = 'h' OR repmodel = 't' ORDER BY 1");
      expect(tables.rows.length).toBeGreaterThan(20);
      const shape = `SELECT (SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY column_name) FROM information_schema.columns WHERE table_name = '%1$s')
                     || ' / ' || (SELECT count(*) FROM pg_indexes WHERE tablename = '%1$s')`;
      for (const { tbl } of tables.rows) {
        const own = await admin.query<{ s: string }>(`${shape.replaceAll("'%1$s'", "$1::text")} AS s`, [tbl]);
        const shards = await admin.query<{ success: boolean; result: string }>("SELECT success, result FROM run_command_on_shards($1, $2)", [tbl, shape]);
        expect(shards.rows.length, tbl).toBeGreaterThan(0);
        for (const s of shards.rows) expect({ tbl, ok: s.success, shape: s.result }).toEqual({ tbl, ok: true, shape: own.rows[0]!.s });
      }
    } finally {
      await admin.end();
    }
  });

  it("ends with the schema of a fresh database, the baseline's rows kept", async () => {
    expect(await schema(pool)).toEqual(await schema(freshPool));
    expect(await placements(pool)).toEqual(await placements(freshPool));
    const r = await pool.query("SELECT id, language FROM collections WHERE tenant_id = 'ten_upg'");
    expect(r.rows).toEqual([{ id: "col_upg", language: null }]);
    // a later migrate finds nothing to do
    expect(await migrate(pool)).toEqual([]);
  });
});
