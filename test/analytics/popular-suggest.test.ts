// Popular queries in GET /collections/{id}/suggest (issues 28 and 29): whole queries of the
// collection that found results often enough, on enough days, are offered before the word
// completions; a query that found nothing, one repeated on a single day, one older than 30 days, the playground's
// searches, another tenant's searches and a tenant with logging off give none. Searches are
// written to the log directly, with the days they need. Also on PostgreSQL (pg-suites).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, noModelEnv, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { newSearchKey } from "../../src/store/analytics-codec.js";
import type { SearchEventRow, SearchOrigin } from "../../src/store/analytics-types.js";
import { POPULAR_MIN_DAYS, POPULAR_MIN_FOUND } from "../../src/services/analytics/popular-queries.js";

const DAY = 86_400_000;
let s: TestServer;
let key: string;
let tenantId: string;
let col: string;

beforeAll(async () => {
  s = await startServer({ ...noModelEnv(), DEFAULT_PLAN: "enterprise" }, { listen: false });
  const t = await s.tenant("Popular");
  [key, tenantId] = [t.adminKey, t.id];
  const src = await createSource(s, key);
  col = await createCollection(s, key, [src]);
  await upload(s, key, src, [{ name: "gearbox.md", content: "# Gearbox\n\nThe gearbox lubrication interval is 2000 hours.\n", type: "text/markdown" }]);
  await waitIndexed(s, key, src);
});
afterAll(async () => {
  await s?.close();
});

const suggest = (q: string, more = "", k = key) => s.call("GET", `/collections/${col}/suggest?q=${encodeURIComponent(q)}${more}`, { key: k });

/** `n` searches of `query` on each of `days` days back from today (0 = today), found something or not */
function searches(query: string, o: { n: number; days: number[]; found?: boolean; origin?: SearchOrigin; tenant?: string; collection?: string }): SearchEventRow[] {
  return o.days.flatMap((d) =>
    Array.from({ length: o.n }, (_, i) => {
      const at = Date.now() - d * DAY - i - 1;
      const found = o.found ?? true;
      return {
        id: newSearchKey(at), tenant_id: o.tenant ?? tenantId, collection_id: o.collection ?? col, at, kind: "search" as const, origin: o.origin ?? "api",
        query, mode: "lexical", filter: null, hits: found ? 2 : 0, top_score: found ? 0.8 : null, top: found ? [{ document_id: "doc_00aa", score: 0.8 }] : [], took_ms: 4, actor: "key_00ff",
      };
    }),
  );
}

describe("popular queries in suggest", () => {
  beforeAll(async () => {
    const other = await s.tenant("Elsewhere");
    const rows = [
      ...searches("gearbox lubrication interval", { n: 3, days: [0, 1] }),
      ...searches("gearbox hours", { n: 1, days: [0, 2, 3] }),
      // just under the line: found twice in all, on two days
      ...searches("gearbox rare", { n: 1, days: [0, 1] }),
      // popular, but before the 30 days looked back over
      ...searches("gearbox ancient", { n: 3, days: [31, 32] }),
      ...searches("gearbox zebra", { n: 9, days: [0, 1], found: false }),
      ...searches("gearbox planted", { n: 20, days: [0] }),
      ...searches("gearbox playground", { n: 5, days: [0, 1], origin: "console" }),
      // another tenant's searches, even under this collection's id, and in its own collection
      ...searches("gearbox leak", { n: 5, days: [0, 1], tenant: other.id }),
      ...searches("gearbox secret", { n: 5, days: [0, 1], tenant: other.id, collection: "col_elsewhere" }),
    ];
    await s.rt.store.analytics.recordSearches(rows, 0.1);
  });

  it("offers popular queries that found results before the word completions, most found first", async () => {
    expect([POPULAR_MIN_FOUND, POPULAR_MIN_DAYS]).toEqual([3, 2]);
    const r = await suggest("gearbox");
    expect(r.status).toBe(200);
    expect(r.body.suggestions).toEqual(["gearbox lubrication interval", "gearbox hours", "gearbox"]);
    // as typed: case and spacing do not matter, a trailing space completes the next word
    expect((await suggest("  GEARBOX   Lub")).body.suggestions).toEqual(["gearbox lubrication interval", "  GEARBOX   lubrication"]);
    expect((await suggest("gearbox ")).body.suggestions).toEqual(["gearbox lubrication interval", "gearbox hours"]);
    // popular queries take half of a short list; the word completion keeps its place
    expect((await suggest("gearbox", "&limit=2")).body.suggestions).toEqual(["gearbox lubrication interval", "gearbox"]);
    expect((await suggest("gearbox", "&limit=1")).body.suggestions).toEqual(["gearbox lubrication interval"]);
  });

  it("never offers a query that found nothing, one planted on one day, the playground's or another tenant's", async () => {
    const all = (await suggest("gearbox", "&limit=20")).body.suggestions as string[];
    expect(all).toEqual(["gearbox lubrication interval", "gearbox hours", "gearbox"]);
    const never = ["gearbox zebra", "gearbox planted", "gearbox playground", "gearbox leak", "gearbox secret", "gearbox rare", "gearbox ancient"];
    for (const q of ["gearbox z", "gearbox p", "gearbox l", "gearbox s", "gearbox r", "gearbox a"]) {
      const got = (await suggest(q, "&limit=20")).body.suggestions as string[];
      expect(got.filter((x) => never.includes(x))).toEqual([]);
    }
    // the other tenant sees its own collection's popular query only through its own collection (404 here)
    const other = await s.tenant("Elsewhere too");
    expect((await suggest("gearbox", "", other.adminKey)).status).toBe(404);
  });

  it("offers none while the workspace's logging is off", async () => {
    expect((await s.call("PATCH", "/analytics/settings", { key, json: { logging: false } })).status).toBe(200);
    expect((await suggest("gearbox")).body.suggestions).toEqual(["gearbox"]);
    expect((await s.call("PATCH", "/analytics/settings", { key, json: { logging: true } })).status).toBe(200);
    expect((await suggest("gearbox")).body.suggestions).toEqual(["gearbox lubrication interval", "gearbox hours", "gearbox"]);
  });
});
