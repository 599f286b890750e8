// Every table the PostgreSQL migrations create has a place in the Citus distribution plan
// (src/store/postgres/distribution.ts), so a new table cannot reach a Citus deployment unplaced,
// and every tenant table carries tenant_id. Plain PostgreSQL suffices; `npm run test:citus`
// checks the placements themselves on a cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, migrate, type Pool } from "../../src/store/postgres/db.js";
import { DISTRIBUTION, placementSummary } from "../../src/store/postgres/distribution.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";

const reason = await pgUnavailableReason();
if (reason) console.log(`distribution plan: skipped (${reason})`);

describe.skipIf(reason !== null)("the Citus distribution plan", () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createTestDatabase("quarry_plan");
    pool = createPool(db.url, { max: 1 });
    await migrate(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("names every table of the schema, each once", async () => {
    const r = await pool.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    const planned = DISTRIBUTION.map(([t]) => t);
    expect(new Set(planned).size).toBe(planned.length);
    expect(r.rows.map((x) => x.t).sort()).toEqual([...planned].sort());
  });

  it.skipIf(CITUS_WORKERS.length > 0)("places nothing on one PostgreSQL", async () => {
    expect(await placementSummary(pool)).toBeNull();
  });

  it("keeps the distribution column in every unique key of a distributed table (Citus refuses one without it)", async () => {
    const r = await pool.query<{ t: string; name: string; cols: string[] }>(
      `SELECT conrelid::regclass::text AS t, conname AS name, array_agg(a.attname::text) AS cols FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
       WHERE c.contype IN ('p', 'u') AND c.connamespace = 'public'::regnamespace GROUP BY 1, 2`,
    );
    const column = new Map(DISTRIBUTION.flatMap(([t, p]) => (p === "tenant" ? [[t, "tenant_id"]] : p === "scope" ? [[t, "scope"]] : [])));
    const keyed = r.rows.filter((x) => column.has(x.t));
    expect(keyed.map((x) => x.t)).toEqual(expect.arrayContaining(["analytics_queries", "analytics_actors", "search_events", "chunks"]));
    for (const k of keyed) expect(k.cols, `${k.t} ${k.name}`).toContain(column.get(k.t));
  });

  it("gives every tenant table a tenant_id", async () => {
    const r = await pool.query<{ t: string }>("SELECT table_name AS t FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'tenant_id'");
    const withTenant = new Set(r.rows.map((x) => x.t));
    for (const [t, placement] of DISTRIBUTION) if (placement === "tenant") expect(withTenant.has(t), t).toBe(true);
  });
});
