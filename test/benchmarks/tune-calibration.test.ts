// A collection's own score calibration (settings.relevance_calibration) over HTTP: set by hand it
// scores the collection's hits (and only answers of its mode), the API refuses a malformed one, and
// POST /benchmarks/{id}/tune fits one from the suite and applies it only with apply: true and a
// better held-out Brier score. No embedding model: answers are lexical, so is the calibration.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { servicingCollection, TITLE_HEAVY, TOPICS } from "./servicing-fixture.js";

const LIGHT = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false" };

let s: TestServer;
let key: string;
let collection: string;
let note: Record<string, string> = {};

const call = (method: string, path: string, json?: unknown) => s.call(method, path, { key, json });
const scores = async (query: string) => (await call("POST", "/search", { collection_id: collection, query, top_k: 10, collapse_documents: false })).body.results.map((h: any) => h.score);
const settingsOf = async () => (await call("GET", `/collections/${collection}`)).body.settings;
const own = (mode: string, intercept: number, weight = 0) => ({
  mode,
  intercept,
  weights: { fused: weight, lex_ratio: weight, lex_log: weight, cosine: weight, both: weight },
});
const sigmoid = (z: number) => Math.round(1e6 / (1 + Math.exp(-z))) / 1e6;

beforeAll(async () => {
  s = await startServer(LIGHT, { listen: false });
  key = (await s.tenant()).adminKey;
  ({ collection, note } = await servicingCollection(s, key));
  expect((await call("PATCH", `/collections/${collection}`, { settings: TITLE_HEAVY })).status).toBe(200);
});

afterAll(async () => {
  await s?.close();
});

describe("a collection's own calibration", () => {
  it("scores the collection's answers of its mode, and leaves other modes' to the shipped calibration", async () => {
    const shipped = await scores("gearbox servicing");
    expect(shipped.length).toBe(10);
    expect(new Set(shipped).size).toBeGreaterThan(1);

    for (const intercept of [5, -5]) {
      const r = await call("PATCH", `/collections/${collection}`, { settings: { ...TITLE_HEAVY, relevance_calibration: own("lexical", intercept) } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(await scores("gearbox servicing")).toEqual(shipped.map(() => sigmoid(intercept)));
    }
    // its /retrieve floor: every hit scores sigmoid(5) = 0.9933, so the shipped floor (0.15) keeps
    // them all and a floor above that keeps only the best
    const contexts = async () => (await call("POST", "/retrieve", { collection_id: collection, query: "gearbox servicing", max_chunks_per_document: 1 })).body.contexts.length;
    expect((await call("PATCH", `/collections/${collection}`, { settings: { ...TITLE_HEAVY, relevance_calibration: own("lexical", 5) } })).status).toBe(200);
    expect(await contexts()).toBe(8);
    const withFloor = { ...own("lexical", 5), retrieve_floor: 0.999 };
    expect((await call("PATCH", `/collections/${collection}`, { settings: { ...TITLE_HEAVY, relevance_calibration: withFloor } })).status).toBe(200);
    expect((await settingsOf()).relevance_calibration).toEqual(withFloor);
    expect(await contexts()).toBe(1);

    // a hybrid calibration does not score lexical answers (this server has no model)
    expect((await call("PATCH", `/collections/${collection}`, { settings: { ...TITLE_HEAVY, relevance_calibration: own("hybrid", 5) } })).status).toBe(200);
    expect(await scores("gearbox servicing")).toEqual(shipped);
    expect((await call("PATCH", `/collections/${collection}`, { settings: TITLE_HEAVY })).status).toBe(200);
  });

  it("refuses a calibration with a negative weight, a missing feature or an unknown mode, saying which field", async () => {
    const bad = [
      own("lexical", 0, -1),
      { mode: "lexical", intercept: 0, weights: { fused: 1, lex_ratio: 1, lex_log: 1, cosine: 1 } },
      own("semantic", 0),
      { ...own("lexical", 0), extra: 1 },
    ];
    for (const relevance_calibration of bad) {
      const r = await call("PATCH", `/collections/${collection}`, { settings: { relevance_calibration } });
      expect(r.status, JSON.stringify(relevance_calibration)).toBe(422);
      expect(JSON.stringify(r.body.detail)).toMatch(/relevance_calibration/);
    }
    expect(await settingsOf()).toEqual(TITLE_HEAVY);
  });
});

describe("tuning fits the collection's calibration", () => {
  it("does not fit from too few relevant hits, and says how many it needs", async () => {
    const suite = await call("POST", "/benchmarks", {
      name: "ten",
      collection_id: collection,
      cases: TOPICS.map((t) => ({ query: `${t} servicing`, relevant_document_ids: [note[t]] })),
    });
    const t = (await call("POST", `/benchmarks/${suite.body.id}/tune`, {})).body;
    expect(t.calibration).toMatchObject({ mode: "lexical", fitted: null, apply: { requested: false, applied: false } });
    // 7 tuning cases, one relevant document each
    expect(t.calibration.hits).toMatchObject({ tuning_relevant: 7, held_out_relevant: 3 });
    expect(t.calibration.apply.detail).toMatch(/hold 7 relevant of \d+; a fit needs at least 10 relevant/);
  });

  it("fits one that scores the held-out cases better, and applies it only with apply: true", async () => {
    const queries = (t: string) => [`${t} servicing`, `${t} servicing record`, `how long does ${t} servicing take`];
    const created = await call("POST", "/benchmarks", {
      name: "thirty",
      collection_id: collection,
      cases: TOPICS.flatMap((t) => queries(t).map((query) => ({ query, relevant_document_ids: [note[t]] }))),
    });
    expect(created.status).toBe(201);
    const before = await scores("gearbox servicing");

    const dry = (await call("POST", `/benchmarks/${created.body.id}/tune`, {})).body;
    const c = dry.calibration;
    expect(c.mode).toBe("lexical");
    expect(c.hits.tuning_relevant).toBe(21);
    // the everyday probe questions find nothing in these servicing notes, so none is used and no floor is set
    expect(c.off_topic_probes).toEqual({ asked: 18, used: 0 });
    expect(c.fitted.relevance_calibration.retrieve_floor).toBeUndefined();
    expect(c.fitted).not.toBeNull();
    expect(Object.values(c.fitted.relevance_calibration.weights).every((w) => (w as number) >= 0)).toBe(true);
    expect(c.fitted.held_out_brier).toBeLessThan(c.current.held_out_brier);
    expect(c.apply).toMatchObject({ requested: false, applied: false });
    expect(c.apply.detail).toMatch(/apply: true/);
    expect(await settingsOf()).toEqual(TITLE_HEAVY);
    expect(await scores("gearbox servicing")).toEqual(before);

    const applied = (await call("POST", `/benchmarks/${created.body.id}/tune`, { apply: true })).body;
    expect(applied.calibration.apply).toMatchObject({ requested: true, applied: true });
    const settings = await settingsOf();
    expect(settings.relevance_calibration).toEqual(applied.calibration.fitted.relevance_calibration);
    // the best fusion setting was applied too; the calibration was fitted under it
    expect(settings.field_weights).toEqual(applied.best.settings.field_weights);
    const after = await scores("gearbox servicing");
    expect(after).not.toEqual(before);
    expect(after.every((x: number, i: number) => x >= 0 && x <= 1 && (i === 0 || x <= after[i - 1]))).toBe(true);
  });
});
