// PostgreSQL's choice between walking the shared HNSW graph and scanning a scope exactly
// (vector-search.ts graphPays): the figures are the measured ones its cost constant comes from.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphPays } from "../../src/store/postgres/content/vector-search.js";
import { rowsPerShard } from "../../src/store/postgres/distribution.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";

const EXACT_BELOW = 20_000;
const GRAPH_FROM = 200_000;
const pays = (n: number, rows: number, ef: number) => graphPays(n, rows, ef, EXACT_BELOW, GRAPH_FROM);

describe("graph or exact scan on PostgreSQL", () => {
  it("scans small scopes and walks the graph for very large ones, whatever the table", () => {
    expect(pays(19_999, 20_000, 100)).toBe(false);
    expect(pays(GRAPH_FROM, 50_000_000, 1000)).toBe(true);
  });

  it("walks the graph for a tenant that is most of its table", () => {
    expect(pays(20_000, 20_000, 400)).toBe(true);
    expect(pays(60_000, 100_000, 1000)).toBe(true);
  });

  it("scans a tenant that is a small share of a large table: the walk would discard the other tenants' rows", () => {
    // 20,000 of 200,000: walk 5.5 ms at ef 100, 32 ms at ef 400; scan 16 ms
    expect(pays(20_000, 200_000, 100)).toBe(true);
    expect(pays(20_000, 200_000, 400)).toBe(false);
    // 50 tenants of 20,000: the searched tenant is 2 % of the graph
    expect(pays(20_000, 1_000_000, 100)).toBe(false);
    expect(pays(20_000, 1_000_000, 400)).toBe(false);
  });

  it("keeps the size rule where the table's rows are unknown (never analysed)", () => {
    expect(pays(20_000, 0, 1000)).toBe(true);
  });
});

const skip = await pgUnavailableReason();
if (skip) console.warn(`pg-vector-choice.test: database part skipped: ${skip}`);

describe.skipIf(skip !== null)("the rows a tenant's graph walk goes through", () => {
  let db: TestDatabase;
  let c: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase("quarry_vchoice");
    c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query("CREATE TABLE vec_probe (tenant_id TEXT NOT NULL, n INT NOT NULL)");
    if (CITUS_WORKERS.length > 0) await c.query("SELECT create_distributed_table('vec_probe', 'tenant_id', shard_count => 4)");
    await c.query("INSERT INTO vec_probe SELECT 't' || (i % 40), i FROM generate_series(1, 4000) AS i");
    await c.query("ANALYZE vec_probe");
  });
  afterAll(async () => {
    await c?.end();
    await db?.drop();
  });

  it("are the table's on one PostgreSQL and one shard's on Citus", async () => {
    const rows = await rowsPerShard(c, "vec_probe");
    if (CITUS_WORKERS.length > 0) expect(rows).toBe(1000);
    else expect(rows).toBe(4000);
  });
});
