// POST /benchmarks/{suite_id}/tune over HTTP (inject). The server has no embedding model (lexical
// search), so the tuning searches BM25 field weights and candidate depth, and the rankings of the
// hand-made documents are certain: for each topic a "note" names the topic only in its body (the
// relevant document), a "memo" names it in its title and headings only (a distractor). The
// collection starts title-heavy (title 10, headings 10, body 1): the memo comes first for every
// query; weights that let the body count bring the note first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource } from "../kit/index.js";
import { servicingCollection, TITLE_HEAVY, TOPICS } from "./servicing-fixture.js";
import { inHashOrder } from "../../src/evaluation/tuning/fusion-search.js";

const LIGHT = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false" };

let s: TestServer;
let key: string;
let tenantId: string;
let collection: string;
let suiteId: string;
let note: Record<string, string> = {};
let memo: Record<string, string> = {};

const call = (method: string, path: string, json?: unknown, k: string | null = key) => s.call(method, path, { key: k, json });

beforeAll(async () => {
  s = await startServer(LIGHT, { listen: false });
  const t = await s.tenant();
  key = t.adminKey;
  tenantId = t.id;
  ({ collection, note, memo } = await servicingCollection(s, key));
  expect((await call("PATCH", `/collections/${collection}`, { settings: TITLE_HEAVY })).status).toBe(200);
  const created = await call("POST", "/benchmarks", {
    name: "servicing",
    collection_id: collection,
    cases: TOPICS.map((t) => ({ query: `${t} servicing`, relevant_document_ids: [note[t]] })),
  });
  expect(created.status).toBe(201);
  suiteId = created.body.id;
});

afterAll(async () => {
  await s?.close();
});

const settingsOf = async () => (await call("GET", `/collections/${collection}`)).body.settings;
const topHit = async (query: string) => (await call("POST", "/search", { collection_id: collection, query, top_k: 3 })).body.results[0].document_id;

describe("tuning a suite's collection", () => {
  it("finds a setting that improves the held-out cases, and without apply changes nothing", async () => {
    expect(await topHit("gearbox servicing")).toBe(memo.gearbox);
    const before = await settingsOf();
    const r = await call("POST", `/benchmarks/${suiteId}/tune`, {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = r.body;
    expect(t).toMatchObject({ suite_id: suiteId, collection_id: collection, mode: "lexical", k: 10, changed: true });
    // a deterministic 70/30 split by case id
    expect(t.split.method).toMatch(/SHA-256.*30% held out/);
    expect(t.split.tuning_case_ids).toHaveLength(7);
    expect(t.split.held_out_case_ids).toHaveLength(3);
    const suiteCases = (await call("GET", `/benchmarks/${suiteId}`)).body.cases.map((c: any) => c.id);
    expect(new Set([...t.split.tuning_case_ids, ...t.split.held_out_case_ids])).toEqual(new Set(suiteCases));
    expect((await call("POST", `/benchmarks/${suiteId}/tune`, { apply: false })).body.split).toEqual(t.split);
    // lexical mode: fusion cannot matter, so only field weights and depth are searched (tens of settings at most)
    expect(t.search.dimensions).toEqual(["field_weights", "candidate_depth"]);
    expect(t.search.settings_evaluated).toBeGreaterThan(1);
    expect(t.search.settings_evaluated).toBeLessThanOrEqual(50);

    // current: the memo ranks first, the note second -> nDCG@10 = 1/log2(3), MRR 0.5, recall 1
    expect(t.current.settings.field_weights).toEqual({ title: 10, headings: 10, body: 1 });
    for (const part of ["tuning", "held_out"]) {
      expect(t.current[part].ndcg_at_10).toBeCloseTo(1 / Math.log2(3), 5);
      expect(t.current[part].mrr_at_10).toBeCloseTo(0.5, 6);
      expect(t.current[part].recall_at_10).toBe(1);
      // the best setting puts every note first, on the cases it never saw too
      expect(t.best[part]).toMatchObject({ ndcg_at_10: 1, mrr_at_10: 1, recall_at_10: 1 });
    }
    expect(t.best.held_out.ndcg_at_10).toBeGreaterThan(t.current.held_out.ndcg_at_10);
    const w = t.best.settings.field_weights;
    expect(w.body / Math.max(w.title, w.headings)).toBeGreaterThan(0.1);
    // the search repeated on 5 folds: every case scored once by a setting chosen without it
    expect(t.cross_validation).toMatchObject({ folds: 5, current: { cases: 10 }, tuned: { cases: 10, ndcg_at_10: 1 } });
    expect(t.cross_validation.current.ndcg_at_10).toBeCloseTo(1 / Math.log2(3), 5);
    expect(t.cross_validation).toMatchObject({ folds_better: 5, folds_worse: 0 });
    expect(t.apply).toMatchObject({ requested: false, applied: false, allowed: true });
    expect(t.apply.detail).toMatch(/apply: true/);
    expect(t.apply.detail).toMatch(/5-fold nDCG@10 1\.0000 against 0\.6309/);

    // nothing changed: the collection's settings and its ranking
    expect(await settingsOf()).toEqual(before);
    expect(await topHit("gearbox servicing")).toBe(memo.gearbox);
  });

  it("applies the setting with apply: true, and later searches use it", async () => {
    const r = await call("POST", `/benchmarks/${suiteId}/tune`, { apply: true });
    expect(r.status).toBe(200);
    expect(r.body.apply).toMatchObject({ requested: true, applied: true, allowed: true });
    expect(r.body.apply.detail).toMatch(/^Applied/);
    const settings = await settingsOf();
    expect(settings).toEqual(r.body.best.settings);
    expect(settings.field_weights).not.toEqual(TITLE_HEAVY.field_weights);
    for (const t of TOPICS) expect(await topHit(`${t} servicing`)).toBe(note[t]);
    const run = (await call("POST", `/benchmarks/${suiteId}/run`)).body;
    expect(run.metrics.ndcg_at_k).toBe(1);

    // tuning again finds nothing better: it keeps the applied setting and says so
    const again = await call("POST", `/benchmarks/${suiteId}/tune`, { apply: true });
    expect(again.body).toMatchObject({ changed: false, cross_validation: null, apply: { requested: true, applied: false, allowed: false } });
    expect(again.body.best.settings).toEqual(again.body.current.settings);
    expect(again.body.apply.detail).toMatch(/already the best/);
    expect(await settingsOf()).toEqual(settings);
  });

  it("refuses a setting that holds on the one split when the search's choices lose out of fold", async () => {
    expect((await call("PATCH", `/collections/${collection}`, { settings: TITLE_HEAVY })).status).toBe(200);
    const before = await settingsOf();
    // Case ids chosen, then placed by their position in the id-hash order (as tuning-search.test.ts
    // does with hand-made lists): positions 0-2 are held out, folds are {0,5} {1,6} {2,7} {3,8}
    // {4,9}. Positions 2, 3, 7 and 8 want the memo (the current, title-heavy setting), the others
    // the note: the 7 tuning cases lean note (4 / 3) and so do the 3 held out (2 / 1), but folds
    // {2,7} and {3,8} want only the memo, and the 8 cases left when they are held out lean note.
    const ids = Array.from({ length: 10 }, (_, i) => `bmc_crossfold${i}`);
    const order = inHashOrder(ids.map((id) => ({ id }))).map((c) => c.id);
    const wantsMemo = new Set([2, 3, 7, 8].map((i) => order[i]!));
    const now = new Date().toISOString();
    const suite = { id: "bms_crossfold", tenant_id: tenantId, collection_id: collection, name: "cross-fold", description: "", top_k: 10, origin: {}, created_at: now };
    const cases = ids.map((id, i) => {
      const topic = TOPICS[i]!;
      return { id, suite_id: suite.id, query: `${topic} servicing`, relevant_document_ids: [wantsMemo.has(id) ? memo[topic]! : note[topic]!], created_at: now };
    });
    await s.rt.store.benchmarks.createSuite(suite, cases);

    const r = await call("POST", `/benchmarks/${suite.id}/tune`, { apply: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = r.body;
    expect(t.changed).toBe(true);
    // the one split lets it through ...
    expect(t.best.tuning.ndcg_at_10).toBeGreaterThan(t.current.tuning.ndcg_at_10);
    expect(t.best.held_out.ndcg_at_10).toBeGreaterThan(t.current.held_out.ndcg_at_10);
    // ... the folds do not
    expect(t.cross_validation).toMatchObject({ folds: 5, folds_better: 0, folds_worse: 2 });
    expect(t.cross_validation.tuned.ndcg_at_10).toBeLessThan(t.cross_validation.current.ndcg_at_10);
    expect(t.apply).toMatchObject({ requested: true, applied: false, allowed: false });
    expect(t.apply.detail).toMatch(/^Not applied: it does not lose on the held-out cases .* but the search's choices lose out of fold \(5-fold nDCG@10 /);
    expect(await settingsOf()).toEqual(before);
  });

  it("counts each case once against the monthly query quota", async () => {
    const before = (await call("GET", "/me")).body.usage.queries_used;
    const r = await call("POST", `/benchmarks/${suiteId}/tune`); // no body at all: apply defaults to false
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.apply.requested).toBe(false);
    expect((await call("GET", "/me")).body.usage.queries_used).toBe(before + TOPICS.length);
  });
});

describe("tune validation", () => {
  it("answers 404 for an unknown suite and for another workspace's", async () => {
    const r = await call("POST", "/benchmarks/bms_nope/tune", { apply: true });
    expect(r.status).toBe(404);
    expect(r.body.detail).toMatch(/Benchmark suite 'bms_nope'/);
    const other = await s.tenant();
    expect((await call("POST", `/benchmarks/${suiteId}/tune`, {}, other.adminKey)).status).toBe(404);
  });

  it("needs apply to be a boolean, and no other fields", async () => {
    for (const body of [{ apply: "true" }, { apply: 1 }, { apply: null }, { colour: "red" }]) {
      const r = await call("POST", `/benchmarks/${suiteId}/tune`, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      const issue = (r.body.detail as any[]).find((i) => JSON.stringify(i.loc) === (body.colour ? '["body","colour"]' : '["body","apply"]'));
      expect(issue, JSON.stringify(r.body)).toBeDefined();
      if (!body.colour) expect(issue.type).toBe("bool_type");
    }
  });

  it("needs ingest scope", async () => {
    const reader = (await call("POST", "/api-keys", { name: "reader", scopes: ["search"] })).body.key;
    expect((await call("POST", `/benchmarks/${suiteId}/tune`, {}, reader)).status).toBe(403);
  });

  it("answers 422 saying what to change for a suite with too few cases", async () => {
    const small = await call("POST", "/benchmarks", {
      name: "small",
      collection_id: collection,
      cases: TOPICS.slice(0, 4).map((t) => ({ query: `${t} servicing`, relevant_document_ids: [note[t]] })),
    });
    const r = await call("POST", `/benchmarks/${small.body.id}/tune`, { apply: true });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["path", "suite_id"]);
    expect(r.body.detail[0].msg).toMatch(/has 4 cases; tuning needs at least 5.*Create a suite with at least 5 cases/);
  });

  it("answers 422 saying what to change when the suite's collection is gone", async () => {
    const src = await createSource(s, key, "spare");
    const col = await createCollection(s, key, [src], "doomed");
    const suite = await call("POST", "/benchmarks", {
      name: "orphan",
      collection_id: col,
      cases: TOPICS.slice(0, 5).map((t) => ({ query: `${t} servicing`, relevant_document_ids: [note[t]] })),
    });
    expect(suite.status).toBe(201);
    const emptyCol = await createCollection(s, key, [], "empty");
    const empty = await call("POST", "/benchmarks", {
      name: "no sources",
      collection_id: emptyCol,
      cases: TOPICS.slice(0, 5).map((t) => ({ query: `${t} servicing`, relevant_document_ids: [note[t]] })),
    });
    const noSources = await call("POST", `/benchmarks/${empty.body.id}/tune`, {});
    expect(noSources.status).toBe(422);
    expect(noSources.body.detail[0].msg).toMatch(/has no data sources\. Attach/);

    expect((await call("DELETE", `/collections/${col}`)).status).toBe(204);
    const r = await call("POST", `/benchmarks/${suite.body.id}/tune`, {});
    if (r.status === 404) return expect.fail("a suite whose collection was deleted should still exist and answer 422");
    expect(r.status).toBe(422);
    expect(r.body.detail[0].msg).toMatch(/collection '.*' no longer exists.*Create a suite for an existing collection/);
  });
});
