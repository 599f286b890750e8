// POST /benchmarks/{suite_id}/tune as a job (background: true, or a suite of more than 100 cases):
// 202 with the tuning job and a Location, GET .../tunings/{id} until it completes with the same
// answer the synchronous call gives, progress, apply, 404s, the 300-case cap of background: false,
// the quota counted at POST time, and the job handler's retry and cancel. Lexical mode (no model)
// over the hand-made documents of tune.test.ts: for each topic a "note" names it in its body (the
// relevant document), a "memo" in its title only; the collection starts title-heavy.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type TestServer, createCollection, createSource, LIGHT_ENV } from "../kit/index.js";
import { servicingCollection, TITLE_HEAVY, TOPICS } from "./servicing-fixture.js";
import { currentPeriod } from "../../src/services/tenants/plans.js";
import type { RunningJob } from "../../src/jobs/types.js";

const STATUS_ORDER = ["queued", "running", "completed"];

let s: TestServer;
let tenantId: string;
let key: string;
let collection: string;
let suiteId: string;
let note: Record<string, string> = {};

const call = (method: string, path: string, json?: unknown, k: string | null = key) => s.call(method, path, { key: k, json });
const settingsOf = async () => (await call("GET", `/collections/${collection}`)).body.settings;
/** `n` cases over the ten topics (repeated with a number the documents do not contain) */
const cases = (n: number) => Array.from({ length: n }, (_, i) => ({ query: `${TOPICS[i % 10]} servicing ${i}`, relevant_document_ids: [note[TOPICS[i % 10]!]!] }));

async function createSuite(name: string, n: number): Promise<string> {
  const r = await call("POST", "/benchmarks", { name, collection_id: collection, cases: n === 10 ? TOPICS.map((t) => ({ query: `${t} servicing`, relevant_document_ids: [note[t]] })) : cases(n) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id;
}

/** Polls a tuning until it ends; every state seen is checked for consistency on the way. */
async function waitTuning(location: string, k: string = key) {
  const seen: any[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await call("GET", location, undefined, k);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = r.body;
    const prev = seen.at(-1);
    seen.push(t);
    expect(["queued", "running", "completed"]).toContain(t.status);
    expect(t.progress.cases_done).toBeGreaterThanOrEqual(0);
    expect(t.progress.cases_done).toBeLessThanOrEqual(t.progress.cases_total);
    if (t.status === "running") expect(["candidates", "search"]).toContain(t.progress.phase);
    if (prev) {
      // never backwards
      expect(STATUS_ORDER.indexOf(t.status)).toBeGreaterThanOrEqual(STATUS_ORDER.indexOf(prev.status));
      expect(t.progress.cases_done).toBeGreaterThanOrEqual(prev.progress.cases_done);
    }
    if (t.status === "completed") return { last: t, seen };
    if (Date.now() > deadline) throw new Error(`tuning still ${t.status} after 60 s: ${JSON.stringify(t.progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const withoutTime = (t: any) => ({ ...t, took_ms: 0 });

beforeAll(async () => {
  s = await startServer(LIGHT_ENV, { listen: false });
  const t = await s.tenant();
  tenantId = t.id;
  key = t.adminKey;
  ({ collection, note } = await servicingCollection(s, key));
  expect((await call("PATCH", `/collections/${collection}`, { settings: TITLE_HEAVY })).status).toBe(200);
  suiteId = await createSuite("servicing", 10);
});

afterAll(async () => {
  await s?.close();
});

describe("tuning as a job", () => {
  it("answers 202 with the job and a Location; the job completes with progress and the synchronous answer", async () => {
    const sync = await call("POST", `/benchmarks/${suiteId}/tune`, {});
    expect(sync.status).toBe(200);
    expect(sync.body.changed).toBe(true);

    const before = (await call("GET", "/me")).body.usage.queries_used;
    const r = await call("POST", `/benchmarks/${suiteId}/tune`, { background: true });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    // counted when accepted, once per case
    expect((await call("GET", "/me")).body.usage.queries_used).toBe(before + TOPICS.length);
    expect(r.body).toMatchObject({ suite_id: suiteId, collection_id: collection, status: "queued", apply: false, result: null, error: null, started_at: null, finished_at: null });
    expect(r.body.progress).toEqual({ phase: "queued", cases_done: 0, cases_total: 10 });
    expect(r.body.id).toMatch(/^tun_/);
    const location = r.headers.get("location");
    expect(location).toBe(`/benchmarks/${suiteId}/tunings/${r.body.id}`);

    const { last } = await waitTuning(location!);
    expect(last.progress).toEqual({ phase: "done", cases_done: 10, cases_total: 10 });
    expect(last.error).toBeNull();
    expect(Date.parse(last.started_at)).toBeGreaterThanOrEqual(Date.parse(last.created_at));
    expect(Date.parse(last.finished_at)).toBeGreaterThanOrEqual(Date.parse(last.started_at));
    // the same answer as in the request (the time it took aside): same split, same best setting, same metrics
    expect(withoutTime(last.result)).toEqual(withoutTime(sync.body));
    expect(last.result.best.settings).toEqual(sync.body.best.settings);
    expect(last.result.apply).toMatchObject({ requested: false, applied: false, allowed: true });
    // the job did not ask for apply: nothing changed
    expect(await settingsOf()).toEqual(expect.objectContaining(TITLE_HEAVY));
    // no more queries were counted by the job itself
    expect((await call("GET", "/me")).body.usage.queries_used).toBe(before + TOPICS.length);

    const list = await call("GET", `/benchmarks/${suiteId}/tunings`);
    expect(list.status).toBe(200);
    expect(list.body[0]).toEqual(last);
  });

  it("tunes a suite of more than 100 cases as a job without being asked, one of 100 in the request", async () => {
    const hundred = await createSuite("hundred", 100);
    const small = await call("POST", `/benchmarks/${hundred}/tune`);
    expect(small.status).toBe(200);
    expect(small.body.split.tuning_case_ids.length + small.body.split.held_out_case_ids.length).toBe(100);

    const large = await createSuite("large", 101);
    const r = await call("POST", `/benchmarks/${large}/tune`, { apply: false });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.progress).toMatchObject({ cases_done: 0, cases_total: 101 });
    const { last } = await waitTuning(r.headers.get("location")!);
    expect(last.progress).toEqual({ phase: "done", cases_done: 101, cases_total: 101 });
    expect(last.result.split.tuning_case_ids.length + last.result.split.held_out_case_ids.length).toBe(101);
  });

  it("refuses background: false above 300 cases with 422, and tunes such a suite as a job", async () => {
    const big = await createSuite("big", 301);
    const before = (await call("GET", "/me")).body.usage.queries_used;
    const refused = await call("POST", `/benchmarks/${big}/tune`, { background: false });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(["body", "background"]);
    expect(refused.body.detail[0].msg).toMatch(/301 cases; a tuning in the request takes at most 300\. Send background: true/);
    expect((await call("GET", "/me")).body.usage.queries_used).toBe(before); // nothing counted
    expect((await call("GET", `/benchmarks/${big}/tunings`)).body).toEqual([]);

    const r = await call("POST", `/benchmarks/${big}/tune`, {});
    expect(r.status).toBe(202);
    const { last } = await waitTuning(r.headers.get("location")!);
    expect(last.progress).toEqual({ phase: "done", cases_done: 301, cases_total: 301 });
    expect((await call("GET", "/me")).body.usage.queries_used).toBe(before + 301);
  });

  it("applies the best setting from a job only when asked and allowed, like the synchronous call", async () => {
    const r = await call("POST", `/benchmarks/${suiteId}/tune`, { apply: true, background: true });
    expect(r.status).toBe(202);
    expect(r.body.apply).toBe(true);
    const { last } = await waitTuning(r.headers.get("location")!);
    expect(last.result.apply).toMatchObject({ requested: true, applied: true, allowed: true });
    const settings = await settingsOf();
    expect(settings).toEqual(last.result.best.settings);
    expect(settings.field_weights).not.toEqual(TITLE_HEAVY.field_weights);

    // again: nothing better, so nothing is written
    const again = await call("POST", `/benchmarks/${suiteId}/tune`, { apply: true, background: true });
    const second = (await waitTuning(again.headers.get("location")!)).last;
    expect(second.result).toMatchObject({ changed: false, apply: { requested: true, applied: false, allowed: false } });
    expect(await settingsOf()).toEqual(settings);
    expect((await call("PATCH", `/collections/${collection}`, { settings: TITLE_HEAVY })).status).toBe(200);
  });
});

describe("reading tunings", () => {
  it("answers 404 for unknown ids, another suite's and another workspace's; a search key may read", async () => {
    const r = await call("POST", `/benchmarks/${suiteId}/tune`, { background: true });
    const id = r.body.id;
    await waitTuning(r.headers.get("location")!);
    expect((await call("GET", `/benchmarks/${suiteId}/tunings/tun_nope`)).status).toBe(404);
    expect((await call("GET", `/benchmarks/bms_nope/tunings`)).status).toBe(404);
    const nope = await call("GET", `/benchmarks/bms_nope/tunings/${id}`);
    expect(nope.status).toBe(404);
    expect(nope.body.detail).toMatch(new RegExp(`Tuning '${id}' was not found`));
    const otherSuite = await createSuite("other", 10);
    expect((await call("GET", `/benchmarks/${otherSuite}/tunings/${id}`)).status).toBe(404);

    const other = await s.tenant();
    expect((await call("GET", `/benchmarks/${suiteId}/tunings/${id}`, undefined, other.adminKey)).status).toBe(404);
    expect((await call("GET", `/benchmarks/${suiteId}/tunings`, undefined, other.adminKey)).status).toBe(404);
    expect((await call("POST", `/benchmarks/${suiteId}/tune`, { background: true }, other.adminKey)).status).toBe(404);

    const reader = (await call("POST", "/api-keys", { name: "reader", scopes: ["search"] })).body.key;
    expect((await call("GET", `/benchmarks/${suiteId}/tunings/${id}`, undefined, reader)).status).toBe(200);
    expect((await call("POST", `/benchmarks/${suiteId}/tune`, { background: true }, reader)).status).toBe(403);
  });

  it("lists a suite's tunings newest first; deleting the suite deletes them", async () => {
    const doomed = await createSuite("doomed", 10);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await call("POST", `/benchmarks/${doomed}/tune`, { background: true });
      ids.push(r.body.id);
      await waitTuning(r.headers.get("location")!);
    }
    expect((await call("GET", `/benchmarks/${doomed}/tunings`)).body.map((t: any) => t.id)).toEqual([...ids].reverse());
    expect((await call("DELETE", `/benchmarks/${doomed}`)).status).toBe(204);
    expect((await call("GET", `/benchmarks/${doomed}/tunings/${ids[0]}`)).status).toBe(404);
    expect(await s.rt.store.benchmarks.getTuning(tenantId, ids[0]!)).toBeNull();
  });

  it("needs background to be a boolean", async () => {
    const r = await call("POST", `/benchmarks/${suiteId}/tune`, { background: "yes" });
    expect(r.status).toBe(422);
    expect(r.body.detail.find((i: any) => JSON.stringify(i.loc) === '["body","background"]')).toBeDefined();
  });
});

describe("the tuning job's handler", () => {
  const row = (id: string, over: Record<string, unknown> = {}) => ({
    id,
    tenant_id: tenantId,
    suite_id: suiteId,
    collection_id: collection,
    status: "queued" as const,
    apply: false,
    phase: "queued",
    cases_done: 0,
    cases_total: 10,
    result: null,
    error: null,
    created_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    ...over,
  });
  const job = (subject: string, signal = new AbortController().signal): RunningJob => ({ id: `job-${subject}`, tenant_id: tenantId, kind: "tune", subject, payload: {}, attempts: 2, max_attempts: 3, signal });

  it("starts over when a retry finds its tuning running (the worker died)", async () => {
    const stale = "2026-01-01T00:00:00.000Z";
    await s.rt.store.benchmarks.createTuning(row("tun_retried", { status: "running", phase: "candidates", cases_done: 7, started_at: stale }));
    await s.rt.benchmarks.handleTune(job("tun_retried"));
    const t = (await call("GET", `/benchmarks/${suiteId}/tunings/tun_retried`)).body;
    expect(t).toMatchObject({ status: "completed", progress: { phase: "done", cases_done: 10, cases_total: 10 }, error: null });
    expect(t.started_at > stale).toBe(true);
    expect(t.result.split.tuning_case_ids).toHaveLength(7);
  });

  it("shows its progress while it runs: a reader sees it running part way through its cases", async () => {
    const big = await createSuite("watched", 120);
    await s.rt.store.benchmarks.createTuning(row("tun_watched", { suite_id: big, cases_total: 120 }));
    // each progress write is followed by a read over HTTP, as a client polling at that moment would see it
    const benchmarks = s.rt.store.benchmarks;
    const write = benchmarks.setTuningProgress.bind(benchmarks);
    const seen: any[] = [];
    const spy = vi.spyOn(benchmarks, "setTuningProgress").mockImplementation(async (...args) => {
      const ok = await write(...args);
      seen.push((await call("GET", `/benchmarks/${big}/tunings/tun_watched`)).body);
      return ok;
    });
    try {
      await s.rt.benchmarks.handleTune(job("tun_watched"));
    } finally {
      spy.mockRestore();
    }
    const partial = seen.filter((t) => t.progress.cases_done > 0 && t.progress.cases_done < 120);
    expect(partial.length, JSON.stringify(seen.map((t) => t.progress))).toBeGreaterThan(0);
    expect(partial[0]).toMatchObject({ status: "running", result: null, progress: { phase: "candidates", cases_total: 120 } });
    expect(seen.at(-1)).toMatchObject({ status: "running", progress: { phase: "search", cases_done: 120 } });
    // throttled: a write at each phase change and about once a second, not one per case
    expect(seen.length).toBeLessThan(20);
    const done = (await call("GET", `/benchmarks/${big}/tunings/tun_watched`)).body;
    expect(done).toMatchObject({ status: "completed", progress: { phase: "done", cases_done: 120, cases_total: 120 } });
  });

  it("ends a cancelled tuning as cancelled without touching the collection", async () => {
    const before = await settingsOf();
    await s.rt.store.benchmarks.createTuning(row("tun_cancelled", { apply: true }));
    const ctl = new AbortController();
    ctl.abort(new Error("The job was cancelled."));
    await s.rt.benchmarks.handleTune(job("tun_cancelled", ctl.signal));
    const t = (await call("GET", `/benchmarks/${suiteId}/tunings/tun_cancelled`)).body;
    expect(t).toMatchObject({ status: "cancelled", result: null, error: "The tuning was cancelled." });
    expect(t.finished_at).not.toBeNull();
    expect(await settingsOf()).toEqual(before);
  });

  it("cancels a queued or running tuning over HTTP; its job then does nothing; an ended one is 409", async () => {
    const before = await settingsOf();
    await s.rt.store.benchmarks.createTuning(row("tun_to_cancel", { apply: true }));
    await s.rt.store.benchmarks.createTuning(row("tun_running", { status: "running", phase: "candidates", cases_done: 3, started_at: new Date().toISOString() }));
    for (const id of ["tun_to_cancel", "tun_running"]) {
      const r = await call("POST", `/benchmarks/${suiteId}/tunings/${id}/cancel`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ id, status: "cancelled", error: "The tuning was cancelled.", result: null });
      expect(r.body.finished_at).not.toBeNull();
    }
    // the queue job of a cancelled tuning (already taken by a worker) ends without tuning
    await s.rt.benchmarks.handleTune(job("tun_to_cancel"));
    expect((await call("GET", `/benchmarks/${suiteId}/tunings/tun_to_cancel`)).body).toMatchObject({ status: "cancelled", result: null });
    expect(await settingsOf()).toEqual(before);

    const again = await call("POST", `/benchmarks/${suiteId}/tunings/tun_to_cancel/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain("is cancelled; only queued or running tunings can be cancelled");
    await s.rt.store.benchmarks.createTuning(row("tun_done", { status: "completed", phase: "done" }));
    expect((await call("POST", `/benchmarks/${suiteId}/tunings/tun_done/cancel`)).status).toBe(409);
    expect((await call("POST", `/benchmarks/${suiteId}/tunings/tun_nope/cancel`)).status).toBe(404);
  });

  it("answers 429 at POST time when the quota cannot take the cases, and queues nothing", async () => {
    const t = await s.tenant();
    const src = await createSource(s, t.adminKey);
    const col = await createCollection(s, t.adminKey, [src]);
    const suite = await call("POST", "/benchmarks", { name: "q", collection_id: col, cases: TOPICS.slice(0, 6).map((q) => ({ query: q, relevant_document_ids: ["d"] })) }, t.adminKey);
    expect(suite.status).toBe(201);
    // free plan: 5,000 queries a month; 4,997 are used, the suite has 6 cases
    await s.rt.store.quotas.consumeQueries(t.id, currentPeriod(), 4997, 5000);
    const r = await call("POST", `/benchmarks/${suite.body.id}/tune`, { background: true }, t.adminKey);
    expect(r.status).toBe(429);
    expect((await call("GET", `/benchmarks/${suite.body.id}/tunings`, undefined, t.adminKey)).body).toEqual([]);
    expect((await call("GET", "/me", undefined, t.adminKey)).body.usage.queries_used).toBe(4997);
  });
});
