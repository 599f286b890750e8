// Issue 27 item 4: a collection's query model adapted on its own heading -> section pairs, applied
// only when the held-out pairs improve, reverted by a setting. Through HTTP with the real store,
// the shipped model file (model/quarry-static-v1.qsm) and two small corpora built here:
// - "topics": six subjects whose headings name them with words their sections never use (a river
//   word heads spreadsheet text), so the collection holds a relation the base model cannot know
//   and training can learn from some headings and carry to held-out ones;
// - "unique": every heading's words belong to it alone, so nothing learnt from one heading can
//   reach a held-out one: the held-out score cannot improve and the guard must refuse.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, indexedCollection } from "../kit/index.js";
import { TOPICS, topicPages, uniquePages } from "./adaptation-corpora.js";
import { keylessPrincipal } from "../../src/services/auth/auth-types.js";

describe("per-collection adaptation of the quarry-static query model", () => {
  let s: TestServer;
  let topics: string;
  let unique: string;
  /** each indexedCollection makes a tenant of its own */
  const keyOf: Record<string, string> = {};
  beforeAll(async () => {
    s = await startServer({ EMBEDDING_PROFILE: "quarry-static" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    topics = await load(topicPages());
    unique = await load(uniquePages());
  }, 180_000);
  afterAll(async () => s?.close());

  async function load(pages: { name: string; content: string }[]): Promise<string> {
    const { key, collection } = await indexedCollection(s, pages);
    keyOf[collection] = key;
    return collection;
  }

  const adapt = (collection: string, body: Record<string, unknown>) => s.call("POST", `/collections/${collection}/adapt`, { key: keyOf[collection] ?? keyOf[topics], json: body });
  const settingsOf = async (collection: string) => (await s.call("GET", `/collections/${collection}`, { key: keyOf[collection] })).body.settings;
  const patch = (collection: string, settings: unknown) => s.call("PATCH", `/collections/${collection}`, { key: keyOf[collection], json: { settings } });
  const vectorTop = async (collection: string, query: string) => {
    const r = await s.call("POST", "/search", { key: keyOf[collection], json: { collection_id: collection, query, top_k: 10, hybrid: { semantic_ratio: 1 } } });
    expect(r.status).toBe(200);
    return r.body.results.map((h: any) => `${h.chunk_id}:${h.score}`);
  };
  /** sections of the water subject (its text is about spreadsheets) in a vector search's top 5 */
  const waterHits = async (collection: string, query: string) => {
    const r = await s.call("POST", "/search", { key: keyOf[collection], json: { collection_id: collection, query, top_k: 5, hybrid: { semantic_ratio: 1 } } });
    return r.body.results.filter((h: any) => TOPICS[0]!.heading.some((w) => (h.heading_path.at(-1) ?? "").includes(w))).length;
  };

  it("applies the adaptation when the held-out pairs improve, and the collection's queries use it", async () => {
    const before = await vectorTop(topics, "lake creek");
    const waterBefore = await waterHits(topics, "lake creek");
    const r = await adapt(topics, { apply: true });
    expect(r.status).toBe(200);
    const a = r.body;
    expect(a.pairs.total).toBe(60);
    expect(a.pairs.held_out).toBe(18);
    expect(a.held_out.adapted.ndcg_at_10).toBeGreaterThan(a.held_out.base.ndcg_at_10);
    expect(a.cross_validation.folds).toBe(5);
    expect(a.cross_validation.adapted.ndcg_at_10).toBeGreaterThanOrEqual(a.cross_validation.base.ndcg_at_10);
    expect(a.apply).toMatchObject({ requested: true, allowed: true, applied: true });
    expect(a.model_adaptation.id).toMatch(/^qad_/);
    const settings = await settingsOf(topics);
    expect(settings.model_adaptation).toMatchObject({ id: a.model_adaptation.id, enabled: true, pairs: 60 });
    // the collection's queries now find the subject their heading words name
    expect(await waterHits(topics, "lake creek")).toBeGreaterThan(waterBefore);
    expect(await vectorTop(topics, "lake creek")).not.toEqual(before);
  }, 120_000);

  it("reverts to the base model's queries with settings.model_adaptation.enabled false, and back", async () => {
    const settings = await settingsOf(topics);
    expect(settings.model_adaptation?.enabled).toBe(true);
    const adapted = await vectorTop(topics, "pond stream");
    const off = await patch(topics, { ...settings, model_adaptation: { ...settings.model_adaptation, enabled: false } });
    expect(off.status).toBe(200);
    const base = await vectorTop(topics, "pond stream");
    expect(base).not.toEqual(adapted);
    // the base model's queries, exactly: the same list a collection that never adapted gets (chunks are never re-embedded)
    const none = await patch(topics, {});
    expect(none.status).toBe(200);
    expect(await vectorTop(topics, "pond stream")).toEqual(base);
    const on = await patch(topics, settings);
    expect(on.status).toBe(200);
    expect(await vectorTop(topics, "pond stream")).toEqual(adapted);
  }, 60_000);

  it("refuses when the held-out pairs do not improve, and leaves the collection unchanged", async () => {
    const settingsBefore = await settingsOf(unique);
    const listBefore = await vectorTop(unique, "apple");
    const r = await adapt(unique, { apply: true });
    expect(r.status).toBe(200);
    const a = r.body;
    expect(a.pairs.total).toBe(60);
    expect(a.held_out.adapted.ndcg_at_10).toBe(a.held_out.base.ndcg_at_10);
    expect(a.apply).toMatchObject({ requested: true, allowed: false, applied: false });
    expect(a.apply.detail).toMatch(/does not improve the held-out pairs/);
    expect(a.model_adaptation).toBeNull();
    expect(await settingsOf(unique)).toEqual(settingsBefore);
    expect(await vectorTop(unique, "apple")).toEqual(listBefore);
  }, 120_000);

  it("does not write without apply: true, even when allowed", async () => {
    const settingsBefore = await settingsOf(topics);
    const r = await adapt(topics, {});
    expect(r.status).toBe(200);
    expect(r.body.apply).toMatchObject({ requested: false, allowed: true, applied: false });
    expect(await settingsOf(topics)).toEqual(settingsBefore);
  }, 120_000);

  it("runs from the tuning endpoint with adapt_model: true, under the tuning's apply", async () => {
    const key = keyOf[topics]!;
    const docs = (await s.call("GET", `/documents?collection_id=${topics}&limit=20`, { key })).body;
    const cases = ["lake creek", "piano drum", "onion garlic", "tower temple", "owl heron", "summer season"].map((query, i) => ({ query, relevant_document_ids: [docs[i].id] }));
    const suite = await s.call("POST", "/benchmarks", { key, json: { name: "topics", collection_id: topics, cases } });
    expect(suite.status).toBe(201);
    const before = await settingsOf(topics);
    const r = await s.call("POST", `/benchmarks/${suite.body.id}/tune`, { key, json: { adapt_model: true, background: false } });
    expect(r.status).toBe(200);
    expect(r.body.model_adaptation.pairs.total).toBe(60);
    expect(r.body.model_adaptation.apply).toMatchObject({ requested: false, applied: false });
    expect((await settingsOf(topics)).model_adaptation).toEqual(before.model_adaptation);
  }, 120_000);

  it("removes the adaptation's file with its collection", async () => {
    const settings = await settingsOf(topics);
    // the tenant that holds the collection (each corpus has its own)
    let tenantId = "";
    for (const t of await s.rt.store.tenants.list()) if (await s.rt.store.content.getCollection(t.id, topics)) tenantId = t.id;
    const name = `adaptation-${settings.model_adaptation.id}`;
    expect(await s.rt.files.read(tenantId, name)).not.toBeNull();
    expect((await s.call("DELETE", `/collections/${topics}`, { key: keyOf[topics] })).status).toBe(204);
    expect(await s.rt.files.read(tenantId, name)).toBeNull();
  }, 60_000);

  it("answers 404 for an unknown collection and 422 for one too small to hold pairs out", async () => {
    expect((await adapt("col_missing", {})).status).toBe(404);
    const tiny = await load([{ name: "one.md", content: "# One page\n\n## Only heading\n\nNot enough sections to learn from or to check with.\n" }]);
    const r = await adapt(tiny, {});
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toMatch(/at least 40/);
  }, 60_000);
});

describe("automatic adaptation once a collection reaches ADAPT_AUTO_MIN_DOCUMENTS", () => {
  let s: TestServer;
  beforeAll(async () => {
    // a one-second check window (10 s by default): the tests wait for its trailing check
    s = await startServer({ EMBEDDING_PROFILE: "quarry-static", ADAPT_AUTO_MIN_DOCUMENTS: "12", ADAPT_CHECK_SECONDS: "1" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
  }, 60_000);
  afterAll(async () => s?.close());

  /** the collection's settings.model_adaptation once it has one (the check runs up to 1 s after the last document) */
  async function recordOf(key: string, collection: string): Promise<any> {
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      const a = (await s.call("GET", `/collections/${collection}`, { key })).body.settings.model_adaptation;
      if (a) return a;
      await new Promise((r) => setTimeout(r, 250));
    }
    return null;
  }

  it("adapts a collection that reached the size when its held-out pairs improve", async () => {
    const { key, collection } = await indexedCollection(s, topicPages());
    const a = await recordOf(key, collection);
    // its source is its own: the whole model (adaptation-model.test.ts)
    expect(a).toMatchObject({ enabled: true, pairs: 60, kind: "model" });
    expect(a.id).toMatch(/^qad_/);
    expect(a.held_out.adapted).toBeGreaterThan(a.held_out.base);
    // and the run is listed with the collection's adaptations, as a requested one in the background is
    const runs = (await s.call("GET", `/collections/${collection}/adaptations`, { key })).body;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: "automatic", kind: "model", apply: true, status: "completed", progress: { phase: "done", folds_done: 5 } });
    expect(runs[0].result).toMatchObject({ model_adaptation: { id: a.id }, apply: { applied: true } });
  }, 90_000);

  it("records a refused attempt, with the size it saw, and changes nothing else", async () => {
    const { key, collection } = await indexedCollection(s, uniquePages());
    const a = await recordOf(key, collection);
    expect(a).toMatchObject({ enabled: false, applied: false, documents: 12 });
    expect(a.id).toBeUndefined();
    expect(a.detail).toMatch(/does not improve the held-out pairs/);
    const [run] = (await s.call("GET", `/collections/${collection}/adaptations`, { key })).body;
    expect(run).toMatchObject({ trigger: "automatic", status: "completed", result: { apply: { applied: false, detail: a.detail } } });
  }, 90_000);

  /**
   * An automatic adaptation of a fresh collection, cancelled by `cancel` as it reports its first
   * fold (through the store its progress goes to); the collection's runs and its adaptation record.
   */
  async function cancelledAtFirstFold(cancel: (tenantId: string, id: string) => Promise<unknown>) {
    const store = s.rt.store.adaptations;
    const { setAdaptationProgress } = store;
    store.setAdaptationProgress = async (tenantId, id, p) => {
      if (p.folds_done === 1) await cancel(tenantId, id);
      return setAdaptationProgress.call(store, tenantId, id, p);
    };
    try {
      const { key, collection } = await indexedCollection(s, topicPages());
      const record = await recordOf(key, collection);
      await expect.poll(() => s.rt.tuneQueue.pending(), { timeout: 30_000, interval: 100 }).toBe(0);
      const runs = (await s.call("GET", `/collections/${collection}/adaptations`, { key })).body;
      return { record, runs: runs.map((r: any) => [r.trigger, r.status]) };
    } finally {
      store.setAdaptationProgress = setAdaptationProgress;
    }
  }

  it("records a cancelled automatic adaptation as it records a refusal, so it waits for the collection to double", async () => {
    const { record, runs } = await cancelledAtFirstFold(async (tenantId, id) => {
      const row = (await s.rt.store.adaptations.getAdaptation(tenantId, id))!;
      await s.rt.adapter.cancel(keylessPrincipal(await s.rt.store.tenants.get(tenantId), ["ingest"]), row.collection_id, id);
    });
    expect(record).toMatchObject({ enabled: false, applied: false, documents: 12 });
    expect(record.detail).toMatch(/^The automatic adaptation was cancelled\. It is tried again once the collection has doubled/);
    expect(runs).toEqual([["automatic", "cancelled"]]);
  }, 90_000);

  it("takes a cancel it learns of from its row alone (made in another process) the same way, and is not run again", async () => {
    // a cancel whose abort has not reached this process yet: only the row says so
    const { record, runs } = await cancelledAtFirstFold((tenantId, id) =>
      s.rt.store.adaptations.transitionAdaptation(tenantId, id, ["running"], "cancelled", { error: "The adaptation was cancelled." }),
    );
    expect(record.detail).toMatch(/^The automatic adaptation was cancelled\./);
    expect(runs).toEqual([["automatic", "cancelled"]]);
  }, 90_000);

  it("leaves alone a collection that turned it off (model_adaptation_auto: false)", async () => {
    const key = (await s.tenant()).adminKey;
    const src = (await s.call("POST", "/data-sources", { key, json: { name: "Docs", source_type: "upload" } })).body.id;
    const col = (await s.call("POST", "/collections", { key, json: { name: "No auto", data_source_ids: [src], settings: { model_adaptation_auto: false } } })).body.id;
    // a sibling over the same source: one check counts both, so once the sibling's adaptation is
    // recorded, the check that would have queued this one has run
    const sibling = (await s.call("POST", "/collections", { key, json: { name: "Auto", data_source_ids: [src] } })).body.id;
    const { upload, waitIndexed } = await import("../kit/index.js");
    expect((await upload(s, key, src, topicPages())).status).toBe(202);
    await waitIndexed(s, key, src, 60_000);
    // a source in two collections keeps the base model's vectors: the queries only
    expect(await recordOf(key, sibling)).toMatchObject({ enabled: true, kind: "queries" });
    // and the tune queue (one worker, in order) has nothing left that could still write it
    await expect.poll(() => s.rt.tuneQueue.pending(), { timeout: 30_000, interval: 100 }).toBe(0);
    const settings = (await s.call("GET", `/collections/${col}`, { key })).body.settings;
    expect(settings).toEqual({ model_adaptation_auto: false });
  }, 90_000);
});

describe("automatic adaptation of a collection of few documents but many chunks (ADAPT_AUTO_MIN_CHUNKS)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ EMBEDDING_PROFILE: "quarry-static", ADAPT_AUTO_MIN_DOCUMENTS: "1000", ADAPT_AUTO_MIN_CHUNKS: "50", ADAPT_CHECK_SECONDS: "1" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
  }, 60_000);
  afterAll(async () => s?.close());

  it("adapts 12 documents far below the document count once their chunks reach it", async () => {
    const { key, collection, source } = await indexedCollection(s, topicPages());
    let tenantId = "";
    for (const t of await s.rt.store.tenants.list()) if (await s.rt.store.content.getCollection(t.id, collection)) tenantId = t.id;
    expect(await s.rt.store.content.chunkCount(tenantId, [source])).toBeGreaterThanOrEqual(50);
    const until = Date.now() + 60_000;
    let a: any = null;
    while (!a && Date.now() < until) {
      a = (await s.call("GET", `/collections/${collection}`, { key })).body.settings.model_adaptation;
      if (!a) await new Promise((r) => setTimeout(r, 250));
    }
    expect(a).toMatchObject({ enabled: true, kind: "model" });
  }, 90_000);
});
