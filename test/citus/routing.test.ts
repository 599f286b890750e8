// On the Citus cluster of `npm run test:citus`: a hybrid search of one tenant (key, tenant, scope,
// quota, lexical, vector, hydrate) runs every statement on one shard group, the tenant's own,
// or on reference tables; checked with EXPLAIN on the statements the request actually ran. So do
// the other per-tenant reads of the search path: typo and prefix candidates (lexical_df's term
// bands), suggestions, filters with facet counts. The search log is distributed by scope (tenant and
// collection) in a co-location group of its own (distribution.ts): a report of one collection runs
// each statement on that scope's shard, a tenant-wide report one statement per scope (the whole
// hours and days from the tenant's own scope once it has two collections), and a click
// on a search is one task a statement too. The check itself is shown to catch a multi-shard statement.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { explainable, groupsOf, recordStatements, scopeGroups, tenantGroup } from "./explain.js";
import { DISTRIBUTION } from "../../src/store/postgres/distribution.js";

/** the search log's tables, distributed by scope */
const LOG = new Set(DISTRIBUTION.filter(([, p]) => p === "scope").map(([t]) => t));

describe.skipIf(CITUS_WORKERS.length === 0)("search routing on Citus", () => {
  let db: TestDatabase;
  let s: TestServer;
  let admin: pg.Client;
  const tenants: { id: string; key: string; src: string }[] = [];
  /** the collection of the hybrid search (tenants[1]), which the analytics reports then show */
  let searched = "";
  /** the search_id of the filtered search (tenants[2], one collection searched) */
  let facetSearch = "";

  beforeAll(async () => {
    db = await createTestDatabase("quarry_citus_route");
    // the search log is written when the test flushes it, not by a timer during a recorded request
    s = await startServer({ DATABASE_URL: db.url, ANALYTICS_FLUSH_MS: "60000" });
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

  /**
   * Runs `request` while recording its statements; expects each to be one task (at most) on the
   * tenant's shard group, or for the search log's tables on the shard of one of the tenant's
   * scopes (of `collection`'s, when named); returns the response, the tables whose shards the
   * statements read and the search log's shard groups they read.
   */
  async function routedToTenant(
    tenant: { id: string },
    request: () => Promise<{ status: number; body: any }>,
    collection?: string,
  ): Promise<{ out: { status: number; body: any }; touched: Set<string>; logGroups: Set<string> }> {
    const { out, statements } = await recordStatements(request);
    expect(out.status, JSON.stringify(out.body)).toBeLessThan(300);
    const group = await tenantGroup(admin, tenant.id);
    const scopes = await scopeGroups(admin, tenant.id, collection);
    const touched = new Set<string>();
    const logGroups = new Set<string>();
    const explained = statements.filter(explainable);
    expect(explained.length).toBeGreaterThan(0);
    for (const st of explained) {
      const g = await groupsOf(admin, st);
      expect(g.maxTasks, st.text).toBeLessThanOrEqual(1);
      for (const h of g.hashed) {
        if (LOG.has(h.table)) logGroups.add(h.group);
        expect(LOG.has(h.table) ? scopes.has(h.group) : h.group === group, `${h.table} in ${st.text}`).toBe(true);
      }
      g.tables.forEach((x) => touched.add(x));
    }
    return { out, touched, logGroups };
  }

  it("runs each statement of a hybrid search on the tenant's shard group", async () => {
    const t = tenants[1]!;
    // a collection no search has seen: its scope is read, not taken from the 10 s cache
    const col = await createCollection(s, t.key, [t.src], "Fresh");
    searched = col;
    // the vector backfill (cross-tenant maintenance, requested by ingest) is not the search's
    await s.rt.backfill.idle();
    const { out, touched } = await routedToTenant(t, () => s.call("POST", "/search", { key: t.key, json: { collection_id: col, query: "rotate Globex keys" } }));
    expect(out.body.mode).toBe("hybrid");
    expect(out.body.results.length).toBeGreaterThan(0);
    // the search read the tenant's scope, content, postings, statistics and vectors on its shards
    expect([...touched]).toEqual(expect.arrayContaining(["collections", "chunks", "lexical_postings", "lexical_stats"]));
    expect([...touched].some((x) => x.startsWith("vec_"))).toBe(true);
  });

  it("reads typo and prefix candidates and suggestions on the tenant's shard group", async () => {
    const t = tenants[0]!;
    const col = await createCollection(s, t.key, [t.src], "Typos");
    await s.rt.backfill.idle();
    // "rotote" is one edit from "rotate"; "gui" a prefix of "guide"
    const json = { collection_id: col, query: "rotote gui", prefix: true, explain: true, hybrid: { semantic_ratio: 0 } };
    const { out, touched } = await routedToTenant(t, () => s.call("POST", "/search", { key: t.key, json }));
    const rules = new Set(out.body.results.flatMap((h: any) => h.explain.rules));
    expect([...rules]).toEqual(expect.arrayContaining(["typo", "prefix"]));
    expect([...touched]).toContain("lexical_df");
    const suggested = await routedToTenant(t, () => s.call("GET", `/collections/${col}/suggest?q=rot`, { key: t.key }));
    expect(JSON.stringify(suggested.out.body)).toContain("rotate");
    expect([...suggested.touched]).toContain("lexical_df");
  });

  it("filters and counts facets on the tenant's shard group", async () => {
    const t = tenants[2]!;
    const col = await createCollection(s, t.key, [t.src], "Facets");
    await s.rt.backfill.idle();
    const json = { collection_id: col, query: "rotate keys", top_k: 2, filter: { data_source_id: t.src }, facets: ["file_type", "data_source_id", "metadata.team"] };
    const { out, touched } = await routedToTenant(t, () => s.call("POST", "/search", { key: t.key, json }));
    facetSearch = out.body.search_id;
    // every one of the tenant's 4 files matches "rotate keys", the page shows 2
    expect(out.body.results.length).toBe(2);
    expect(out.body.facets.data_source_id).toEqual({ [t.src]: 4 });
    expect([...touched]).toEqual(expect.arrayContaining(["documents", "lexical_postings"]));
  });

  it("runs each statement of a collection's report on its scope's shard, a tenant's report one statement per scope", async () => {
    const t = tenants[1]!;
    expect(searched).not.toBe("");
    // a second collection searched: the tenant's log has two scopes
    const other = await createCollection(s, t.key, [t.src], "Other");
    expect((await s.call("POST", "/search", { key: t.key, json: { collection_id: other, query: "Globex guide" } })).status).toBe(200);
    await s.rt.analytics.flush();
    const touched = new Set<string>();
    for (const path of [`/analytics/searches?interval=hour&collection_id=${searched}`, `/analytics/queries?collection_id=${searched}`]) {
      const r = await routedToTenant(t, () => s.call("GET", path, { key: t.key }), searched);
      expect(r.out.body.data.length, path).toBeGreaterThan(0);
      expect(r.logGroups.size, path).toBe(1);
      r.touched.forEach((x) => touched.add(x));
    }
    // suggest's popular queries read the daily rollup of the collection's scope
    const suggested = await routedToTenant(t, () => s.call("GET", `/collections/${searched}/suggest?q=rot`, { key: t.key }), searched);
    expect([...suggested.touched]).toContain("query_daily");
    expect(suggested.logGroups.size).toBe(1);
    // both collections' scopes and the tenant's own (made when the second collection was logged)
    const all = await scopeGroups(admin, t.id);
    const own = await scopeGroups(admin, t.id, "");
    expect(own.size).toBe(1);
    for (const path of ["/analytics/searches?interval=hour", "/analytics/queries"]) {
      const r = await routedToTenant(t, () => s.call("GET", path, { key: t.key }));
      expect(r.out.body.data.length, path).toBeGreaterThan(0);
      // the edges of the window from each collection's scope, the whole hours or days from the
      // tenant's, each by a statement of its own (one task each, checked above)
      expect(r.logGroups, path).toEqual(all);
      expect(r.logGroups.has([...own][0]!), path).toBe(true);
    }
    expect([...touched]).toEqual(expect.arrayContaining(["analytics_scopes", "search_events", "analytics_queries"]));
    const r = await admin.query<{ tbl: string; m: string }>(
      "SELECT logicalrelid::text AS tbl, partmethod::text || repmodel::text AS m FROM pg_dist_partition WHERE logicalrelid::text = ANY($1)",
      [[...touched].filter((x) => x.startsWith("analytics_") || x.startsWith("search_") || x.endsWith("_daily"))],
    );
    // the scopes a reference table, the log hash-distributed
    expect(Object.fromEntries(r.rows.map((x) => [x.tbl, x.m]))).toMatchObject({ analytics_scopes: "nt", search_events: "hs", analytics_queries: "hs" });
  });

  it("records a click on a search with one task a statement, on its scope's shard", async () => {
    const t = tenants[2]!;
    expect(facetSearch).toMatch(/^srch_/);
    await s.rt.analytics.flush();
    const { touched } = await routedToTenant(t, () =>
      s.call("POST", `/searches/${facetSearch}/events`, { key: t.key, json: { type: "click", document_id: "doc_x", position: 1 } }),
    );
    expect([...touched]).toEqual(expect.arrayContaining(["search_events", "search_feedback", "query_daily"]));
  });

  it("flags a statement that fans out to every shard", async () => {
    const g = await groupsOf(admin, { text: "SELECT count(*) FROM chunks WHERE position >= $1", values: [0] });
    // (EXPLAIN shows one of the tasks, so one shard name: the task count tells)
    expect(g.maxTasks).toBeGreaterThan(1);
  });
});
