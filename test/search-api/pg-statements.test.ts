// What a warm search costs PostgreSQL, in statements: a server on the PostgreSQL store answers a
// hybrid /search and a /retrieve with its key cached, while every pg client's statements are
// recorded. The tenant, the collection's scope and the quota are one statement (quotas.admitSearch;
// docs/decisions.md "One statement to admit a search"), and the whole search stays within its
// budget: a change that adds a round trip to every search fails here. The tenant has settled, so
// BM25 comes from the process's in-memory index (content/lexical-cache.ts: one probe of the
// tenant's generation instead of the lexical statements). Skipped without PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexedCollection, startServer, type TestServer } from "../kit/index.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { recordStatements, type Recorded } from "../citus/explain.js";
import { dropPrefix, REDIS_URL, redisReachable, testPrefix } from "../jobs/redis.js";
import type { PostgresContent } from "../../src/store/postgres/content/index.js";

const reason = await pgUnavailableReason();
if (reason) console.warn(`skipping the PostgreSQL statement count: ${reason}`);

/** admission, the generation probes of the dictionary and of lexical search, vectors, chunk -> document, hydrate */
const SEARCH_BUDGET = 6;
/** the same and the neighbours' ranges (context_window) */
const RETRIEVE_BUDGET = 7;
const ADMISSION_TABLES = /\b(api_keys|tenants|collections|collection_sources|usage_counters)\b/;

describe.skipIf(reason !== null)("statements of a warm search on PostgreSQL", () => {
  let db: TestDatabase;
  let s: TestServer;
  let key = "";
  let col = "";
  const prefix = testPrefix();

  beforeAll(async () => {
    db = await createTestDatabase("quarry_statements");
    const redis: Record<string, string> = (await redisReachable()) ? { REDIS_URL, QUEUE_PREFIX: prefix } : {};
    s = await startServer({ DATABASE_URL: db.url, ANALYTICS_FLUSH_MS: "60000", ...redis }, { listen: false });
    const files = ["gearbox oil and the turbine blade", "rotor brake near the tower", "gearbox bearing grease"].map((t, i) => ({ name: `n${i}.md`, content: `# Note ${i}\n\n${t}.\n` }));
    ({ key, collection: col } = await indexedCollection(s, files));
    await s.rt.backfill.idle();
    // the tenant's lexical generation holds for 2 s, then a search starts the index's load
    expect((await s.call("POST", "/search", { key, json: { collection_id: col, query: "gearbox" } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await s.call("POST", "/search", { key, json: { collection_id: col, query: "gearbox" } })).status).toBe(200);
    const cache = (s.rt.store.content as PostgresContent).lexicalCache;
    await cache.idle();
    expect(cache.stats().tenants).toBe(1);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await db?.drop();
    await dropPrefix(prefix);
  });

  /**
   * The statements of `path` once warm: its key served from the key cache (rows live 60 s with
   * REDIS_URL, 500 ms without: a try that had to load the key is repeated), connections open.
   * The job queue's polls, which run beside the request, are left out.
   */
  async function warm(path: string, json: Record<string, unknown>): Promise<{ body: any; statements: Recorded[] }> {
    expect((await s.call("POST", path, { key, json })).status).toBe(200);
    for (let attempt = 1; ; attempt++) {
      const { out, statements } = await recordStatements(() => s.call("POST", path, { key, json }));
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      const own = statements.filter((x) => !/\bjobs\b/.test(x.text));
      if (!own.some((x) => /\bapi_keys\b/.test(x.text)) || attempt === 5) return { body: out.body, statements: own };
    }
  }

  const show = (st: Recorded[]) => st.map((x) => x.text.replace(/\s+/g, " ").slice(0, 100)).join("\n");

  it("admits a hybrid search in one statement and answers within the budget", async () => {
    const { body, statements } = await warm("/search", { collection_id: col, query: "gearbox oil" });
    expect(body.mode).toBe("hybrid");
    expect(body.results.length).toBeGreaterThan(0);
    const admission = statements.filter((x) => ADMISSION_TABLES.test(x.text));
    expect(admission.length, show(statements)).toBe(1);
    expect(admission[0]!.text).toMatch(/usage_counters/);
    expect(statements.filter((x) => /\blexical_(postings|df)\b/.test(x.text)), show(statements)).toEqual([]);
    expect(statements.length, show(statements)).toBeLessThanOrEqual(SEARCH_BUDGET);
  });

  it("admits a retrieve in one statement too", async () => {
    const { statements } = await warm("/retrieve", { collection_id: col, query: "rotor brake", context_window: 1 });
    expect(statements.filter((x) => ADMISSION_TABLES.test(x.text)).length, show(statements)).toBe(1);
    expect(statements.length, show(statements)).toBeLessThanOrEqual(RETRIEVE_BUDGET);
  });
});
