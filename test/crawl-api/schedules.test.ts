// Schedules of crawled sources over HTTP: validation (422) and the plan's cap, the next run shown,
// POST /data-sources/{id}/sync, and a due schedule fired exactly once by two schedulers ticking
// at the same moment (as two worker processes would).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIGHT_ENV, createSource, startServer, type TestServer } from "../kit/index.js";
import { html, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { waitCrawl } from "./helpers.js";

describe("source schedules", () => {
  let s: TestServer;
  let key: string;
  let site: FixtureServer;
  let sourceId: string;

  beforeAll(async () => {
    // the background check stays out of the way: the test ticks by hand
    s = await startServer({ ...LIGHT_ENV, CRAWL_ALLOW_PRIVATE_NETWORKS: "true", SCHEDULE_CHECK_SECONDS: "3600", DEFAULT_PLAN: "free" });
    key = (await s.tenant()).adminKey;
    site = await serve((req, res) => send(req, res, { body: html("Home", "<p>The only page.</p>") }));
    const r = await s.call("POST", "/crawl", { key, json: { url: `${site.base}/`, max_depth: 0 } });
    sourceId = r.body.data_source_id;
    await waitCrawl(s, key, r.body.id);
  });

  afterAll(async () => {
    await s?.close();
    await site?.close();
  });

  const put = (schedule: string, id = sourceId) => s.call("PUT", `/data-sources/${id}/schedule`, { key, json: { schedule } });

  it("takes daily and shows the next run at midnight UTC", async () => {
    const r = await put("daily");
    expect(r.status).toBe(200);
    const next = new Date(r.body.next_run_at);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(next.toISOString()).toMatch(/T00:00:00\.000Z$/);
    expect((await s.call("GET", `/data-sources/${sourceId}/schedule`, { key })).body).toMatchObject({ schedule: "daily", last_run_at: null });
  });

  it("refuses invalid expressions and schedules the plan does not allow with 422", async () => {
    for (const bad of ["61 * * * *", "every tuesday", "* * * *"]) {
      const r = await put(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "schedule"]);
    }
    const hourly = await put("hourly");
    expect(hourly.status).toBe(422);
    expect(hourly.body.detail[0].msg).toContain("at most once a day");
    expect((await put("0 */6 * * *")).status).toBe(422);
    expect((await put("30 2 * * 1-5")).status).toBe(200);
  });

  it("refuses sources that are not crawled websites, and other workspaces' sources", async () => {
    const upload = await createSource(s, key, "Files");
    const r = await put("daily", upload);
    expect(r.status).toBe(400);
    expect(r.body.detail).toContain("not a crawled website source");
    expect((await s.call("POST", `/data-sources/${upload}/sync`, { key })).status).toBe(400);
    const other = (await s.tenant()).adminKey;
    expect((await s.call("PUT", `/data-sources/${sourceId}/schedule`, { key: other, json: { schedule: "daily" } })).status).toBe(404);
    expect((await s.call("POST", `/data-sources/${sourceId}/sync`, { key: other })).status).toBe(404);
  });

  it("POST /data-sources/{id}/sync crawls now with the saved settings", async () => {
    const r = await s.call("POST", `/data-sources/${sourceId}/sync`, { key });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ data_source_id: sourceId, url: `${site.base}/`, max_depth: 0, status: "queued" });
    const job = await waitCrawl(s, key, r.body.id);
    expect(job).toMatchObject({ status: "completed", pages_unchanged: 1 });
  });

  it("a due schedule fires once when two schedulers tick together, and moves to its next run", async () => {
    await put("daily");
    const row = (await s.rt.store.schedules.get((await s.call("GET", "/me", { key })).body.tenant.id, sourceId))!;
    const past = new Date(Date.now() - 60_000).toISOString();
    await s.rt.store.schedules.put({ ...row, next_run_at: past });
    const before = (await s.call("GET", "/crawl", { key })).body.length;
    const started = await Promise.all([s.rt.schedules.tick(), s.rt.schedules.tick()]);
    expect(started[0] + started[1]).toBe(1);
    const crawls = (await s.call("GET", "/crawl", { key })).body;
    expect(crawls.length).toBe(before + 1);
    await waitCrawl(s, key, crawls[0].id);
    const after = (await s.call("GET", `/data-sources/${sourceId}/schedule`, { key })).body;
    expect(Date.parse(after.next_run_at)).toBeGreaterThan(Date.now());
    expect(after.last_run_at).not.toBeNull();
    expect(await s.rt.schedules.tick()).toBe(0); // nothing due any more
  });

  it("DELETE stops the schedule", async () => {
    expect((await s.call("DELETE", `/data-sources/${sourceId}/schedule`, { key })).status).toBe(204);
    expect((await s.call("GET", `/data-sources/${sourceId}/schedule`, { key })).status).toBe(404);
  });
});
