// The PostgreSQL store's in-memory BM25 indexes of settled tenants (content/lexical-cache.ts): an
// index answers exactly as the SQL statement does, is used only while the tenant's generation is
// the one it was built at, waits for the tenant's content to settle, and stays within its size.
// The oracle is the same database searched by a store without the cache.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { createPool, migrate, type Pool } from "../../src/store/postgres/db.js";
import { postgresContent, type PostgresContent } from "../../src/store/postgres/content/index.js";
import type { NewChunk } from "../../src/store/content-types.js";
import type { LexicalQuery, LexicalWeights, TermLookup } from "../../src/search/lexical/types.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";
import { GENERATION_SQL, PAGE_SQL } from "../../src/store/postgres/content/lexical-cache.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { groupsOf, tenantGroup } from "../citus/explain.js";

const reason = await pgUnavailableReason();
if (reason) console.warn(`skipping the PostgreSQL lexical cache tests: ${reason}`);

const W: LexicalWeights = { title: 2, headings: 1.5, body: 1 };
const q = (terms: string[], phrases: string[][] = []): LexicalQuery => analyzeQuery({ terms, phrases }, DEFAULT_ANALYZER);
const chunk = (position: number, text: string): NewChunk => ({ position, text, heading_path: position % 2 ? ["Guide", "Caching"] : [], token_count: 5, metadata: {} });

const TEXTS = [
  ["Cache eviction", "the cache evicts the least recently used entry when memory runs low", "write-back caches delay the disk write"],
  ["Network latency", "packet loss raises latency on the network", "latency of a cache miss against a network round trip"],
  ["Disk layout", "pages of the disk are read in order; the cache keeps hot pages", "fragmentation slows sequential reads"],
  ["Memory pressure", "under memory pressure the kernel reclaims cache pages first", "swap is the last resort"],
  ["Least recently used", "an LRU list orders entries by last use: least recently used first out", "clock approximates least recently used"],
];

describe.skipIf(reason !== null)("PostgreSQL lexical cache", () => {
  let db: TestDatabase;
  let pool: Pool;
  let sql: PostgresContent;

  beforeAll(async () => {
    db = await createTestDatabase("quarry_lexcache");
    pool = createPool(db.url, { max: 6 });
    await migrate(pool);
    sql = postgresContent(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  async function tenantWithDocs(tenant: string, docs: string[][] = TEXTS): Promise<void> {
    await pool.query("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES ($1, $1, $1, 'free', TRUE, $2)", [tenant, new Date().toISOString()]);
    for (const s of ["s1", "s2"]) {
      await sql.createSource({ id: `${tenant}-${s}`, tenant_id: tenant, name: s, source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: new Date().toISOString() }, [], null);
    }
    for (const [i, [title, ...texts]] of docs.entries()) await addDoc(tenant, `${tenant}-s${(i % 2) + 1}`, `${tenant}-d${i}`, title!, texts);
  }

  async function addDoc(tenant: string, source: string, id: string, title: string, texts: string[]): Promise<void> {
    await sql.upsertDocuments(tenant, source, [{ id, source: `${id}.txt`, title, source_type: "upload", kind: "text", content_type: "text/plain", size_bytes: 1, content_hash: id, metadata: {} }], null);
    await sql.replaceDocumentIndex(tenant, id, { title, metadata: {} }, texts.map((t, i) => chunk(i, t)), null);
  }

  /** a store whose every search may use the cache, loading at once */
  const cached = (maxChunks = 1_000_000, settleMs = 0) => postgresContent(pool, { lexicalCache: { maxChunks, settleMs, page: 3 } });

  const QUERIES = [q(["cache", "memory"]), q(["least", "recently", "used"], [["least", "recently", "used"]]), q(["latency", "network", "disk"]), q(["swap"])];
  const sources = (t: string) => [`${t}-s1`, `${t}-s2`];

  async function sameAsStatement(c: PostgresContent, tenant: string): Promise<void> {
    for (const query of QUERIES) {
      for (const scope of [sources(tenant), [`${tenant}-s2`]]) {
        const got = await c.lexicalSearch(tenant, scope, query, 10, W);
        const want = await sql.lexicalSearch(tenant, scope, query, 10, W);
        expect(got.map((h) => h.chunkId)).toEqual(want.map((h) => h.chunkId));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 6));
      }
    }
    const lookup: TermLookup = { terms: ["cache", "latenc", "nothing"], ranges: [{ prefix: "l", minLength: 1, maxLength: 20, limit: 5 }], present: ["ca", "zz"] };
    const got = await c.lexicalTerms(tenant, lookup);
    const want = await sql.lexicalTerms(tenant, lookup);
    expect(got.docCount).toBe(want.docCount);
    expect([...got.df.entries()].sort()).toEqual([...want.df.entries()].sort());
    expect(got.ranges).toEqual(want.ranges);
    expect(got.present?.sort()).toEqual(want.present?.sort());
  }

  it("loads a settled tenant and answers searches and term lookups as the statement does", async () => {
    await tenantWithDocs("t1");
    const c = cached();
    expect(await c.lexicalSearch("t1", sources("t1"), QUERIES[0]!, 10, W)).not.toEqual([]);
    await c.lexicalCache.idle();
    expect(c.lexicalCache.stats()).toMatchObject({ tenants: 1, chunks: 10, failures: 0 });
    await sameAsStatement(c, "t1");
  });

  it("reads a tenant whole whatever its ids' digits (pages in numeric order)", async () => {
    const citus = (await pool.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'")).rowCount! > 0;
    // ids 96-105: in text order "100" < "96", and a page boundary at 102 would skip 96-99
    if (!citus) await pool.query("SELECT setval(pg_get_serial_sequence('chunks', 'id'), 95)");
    await tenantWithDocs("t0");
    const ids = (await pool.query<{ id: string }>("SELECT id::text AS id FROM chunks WHERE tenant_id = 't0' ORDER BY chunks.id")).rows.map((r) => r.id);
    if (!citus) expect([ids[0], ids.at(-1)]).toEqual(["96", "105"]);
    const c = cached();
    await c.lexicalSearch("t0", sources("t0"), QUERIES[0]!, 10, W);
    await c.lexicalCache.idle();
    expect(c.lexicalCache.stats()).toMatchObject({ tenants: 1, chunks: 10 });
    await sameAsStatement(c, "t0");
  });

  it("never answers from an index older than the tenant's last write, removals included", async () => {
    await tenantWithDocs("t2");
    const c = cached();
    await c.lexicalSearch("t2", sources("t2"), QUERIES[0]!, 10, W);
    await c.lexicalCache.idle();
    expect(c.lexicalCache.stats().tenants).toBe(1);
    await addDoc("t2", "t2-s1", "t2-new", "Swap files", ["swap swap swap on a slow disk"]);
    const hits = await c.lexicalSearch("t2", sources("t2"), q(["swap"]), 10, W);
    expect((await sql.hydrateChunks("t2", hits.map((h) => h.chunkId))).get(hits[0]!.chunkId)?.document_id).toBe("t2-new");
    await c.lexicalCache.idle(); // reloaded at the new generation (settle 0)
    await sameAsStatement(c, "t2");
    await sql.deleteDocument("t2", "t2-new");
    const after = await c.lexicalSearch("t2", sources("t2"), q(["swap"]), 10, W);
    expect(after.map((h) => h.chunkId)).toEqual((await sql.lexicalSearch("t2", sources("t2"), q(["swap"]), 10, W)).map((h) => h.chunkId));
    const docs = await sql.hydrateChunks("t2", after.map((h) => h.chunkId));
    expect([...docs.values()].map((d) => d.document_id)).not.toContain("t2-new");
  });

  it("does not answer for a tenant deleted and created again with other content", async () => {
    await tenantWithDocs("t3");
    const c = cached();
    await c.lexicalSearch("t3", sources("t3"), QUERIES[0]!, 10, W);
    await c.lexicalCache.idle();
    await pool.query("DELETE FROM tenants WHERE id = 't3'");
    await tenantWithDocs("t3", [["Gardening", "tomatoes need sun and water"], ["Compost", "compost feeds the soil"]]);
    expect(await c.lexicalSearch("t3", sources("t3"), q(["cache"]), 10, W)).toEqual([]);
    expect(await c.lexicalSearch("t3", sources("t3"), q(["tomato"]), 10, W)).toHaveLength(1);
  });

  it("waits for a tenant's content to settle, and leaves out tenants above its size", async () => {
    await tenantWithDocs("t4");
    const slow = cached(1_000_000, 60_000);
    for (let i = 0; i < 3; i++) await slow.lexicalSearch("t4", sources("t4"), QUERIES[0]!, 10, W);
    await slow.lexicalCache.idle();
    expect(slow.lexicalCache.stats().tenants).toBe(0);
    const small = cached(9);
    await small.lexicalSearch("t4", sources("t4"), QUERIES[0]!, 10, W);
    await small.lexicalCache.idle();
    expect(small.lexicalCache.stats().tenants).toBe(0);
    await sameAsStatement(small, "t4");
    // two tenants in a cache with room for one: the one searched last stays
    await tenantWithDocs("t5");
    const one = cached(10);
    for (const t of ["t4", "t5"]) {
      await one.lexicalSearch(t, sources(t), QUERIES[0]!, 10, W);
      await one.lexicalCache.idle();
    }
    expect(one.lexicalCache.stats()).toMatchObject({ tenants: 1, chunks: 10 });
    await sameAsStatement(one, "t5");
  });

  it.skipIf(CITUS_WORKERS.length === 0)("on Citus, reads the generation and the tenant's rows on the tenant's shard group", async () => {
    await tenantWithDocs("t6");
    const admin = await pool.connect();
    try {
      const group = await tenantGroup(admin as never, "t6");
      for (const st of [{ text: GENERATION_SQL, values: ["t6"] }, { text: PAGE_SQL, values: ["t6", "0", 100] }]) {
        const g = await groupsOf(admin as never, st);
        expect(g.maxTasks, st.text).toBeLessThanOrEqual(1);
        expect([...g.groups], st.text).toEqual([group]);
      }
    } finally {
      admin.release();
    }
  });
});
