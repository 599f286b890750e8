// On the Citus cluster of `npm run test:citus`: a hybrid search of one tenant (key, tenant, scope,
// quota, lexical, vector, hydrate) runs every statement on one shard group, the tenant's own,
// or on reference tables; checked with EXPLAIN on the statements the request actually ran. The
// check itself is shown to catch a multi-shard statement.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { explainable, recordStatements, routing, type Recorded } from "./explain.js";

describe.skipIf(CITUS_WORKERS.length === 0)("search routing on Citus", () => {
  let db: TestDatabase;
  let s: TestServer;
  let admin: pg.Client;
  const tenants: { id: string; key: string; src: string }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase("quarry_citus_route");
    s = await startServer({ DATABASE_URL: db.url });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    for (const name of ["Acme", "Globex", "Initech"]) {
      const t = await s.tenant(name);
      const src = await createSource(s, t.adminKey);
      const files = Array.from({ length: 4 }, (_, i) => ({ name: `${name}-${i}.md`, content: `# ${name} guide ${i}\n\nRotate the ${name} keys every ${i + 1} days.\n` }));
      expect((await upload(s, t.adminKey, src, files)).status).toBe(202);
      await waitIndexed(s, t.adminKey, src);
      tenants.push({ id: t.id, key: t.adminKey, src });
    }
  }, 180_000);

  afterAll(async () => {
    await admin?.end();
    await s?.close();
    await db?.drop();
  });

  /** shard id -> [table, shard group (hash range start), placement method] */
  async function shardInfo(ids: number[]): Promise<Map<number, { table: string; group: string | null; method: string }>> {
    const r = await admin.query<{ shardid: number; tbl: string; minv: string | null; partmethod: string }>(
      `SELECT s.shardid, s.logicalrelid::text AS tbl, s.shardminvalue AS minv, p.partmethod
       FROM pg_dist_shard s JOIN pg_dist_partition p USING (logicalrelid) WHERE s.shardid = ANY($1)`,
      [ids],
    );
    return new Map(r.rows.map((x) => [Number(x.shardid), { table: x.tbl, group: x.minv, method: x.partmethod }]));
  }

  async function tenantGroup(tenantId: string): Promise<string> {
    const r = await admin.query<{ minv: string }>(
      "SELECT shardminvalue AS minv FROM pg_dist_shard WHERE shardid = get_shard_id_for_distribution_column('chunks', $1::text)",
      [tenantId],
    );
    return r.rows[0]!.minv;
  }

  /** the hash shard groups a statement touches, and its largest task count */
  async function groupsOf(st: Recorded): Promise<{ groups: Set<string>; maxTasks: number; tables: string[] }> {
    const r = await routing(admin, st);
    const info = await shardInfo(r.shards);
    const hashed = [...info.values()].filter((x) => x.method === "h");
    return { groups: new Set(hashed.map((x) => x.group!)), maxTasks: Math.max(0, ...r.taskCounts), tables: hashed.map((x) => x.table) };
  }

  it("runs each statement of a hybrid search on the tenant's shard group", async () => {
    const t = tenants[1]!;
    // a collection no search has seen: its scope is read, not taken from the 10 s cache
    const col = await createCollection(s, t.key, [t.src], "Fresh");
    // the vector backfill (cross-tenant maintenance, requested by ingest) is not the search's
    await s.rt.backfill.idle();
    const { out, statements } = await recordStatements(() =>
      s.call("POST", "/search", { key: t.key, json: { collection_id: col, query: "rotate Globex keys" } }),
    );
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    expect(out.body.mode).toBe("hybrid");
    expect(out.body.results.length).toBeGreaterThan(0);
    const group = await tenantGroup(t.id);
    const touched = new Set<string>();
    for (const st of statements.filter(explainable)) {
      const g = await groupsOf(st);
      expect(g.maxTasks, st.text).toBeLessThanOrEqual(1);
      expect([...g.groups].every((x) => x === group), st.text).toBe(true);
      g.tables.forEach((x) => touched.add(x));
    }
    // the search read the tenant's scope, content, postings, statistics and vectors on its shards
    expect([...touched]).toEqual(expect.arrayContaining(["collections", "chunks", "lexical_postings", "lexical_stats"]));
    expect([...touched].some((x) => x.startsWith("vec_"))).toBe(true);
  });

  it("flags a statement that fans out to every shard", async () => {
    const g = await groupsOf({ text: "SELECT count(*) FROM chunks WHERE position >= $1", values: [0] });
    // (EXPLAIN shows one of the tasks, so one shard name: the task count tells)
    expect(g.maxTasks).toBeGreaterThan(1);
  });
});
