// Issue 27 item 4, the whole-model kind: a collection's model adapted on its own text (queries and
// passages), applied only when the held-out pairs improve; its data sources' chunks embedded again
// with it (and again with the base model when it is turned off or the collection deleted), new
// documents embedded with it, and its sources kept out of other collections meanwhile; run as a job
// by default (202, followed at its Location), or in the request with background: false. Through
// HTTP with the real store and the shipped model file; a chunk's stored vector is read back by
// asking the vector index for the vector a model makes of its text (score 1: the same vector).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSource, indexedCollection, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { staticBaseOf } from "../../src/embed/index.js";
import { AdaptedQueryEncoder, decodeQueryDelta } from "../../src/model/query-delta.js";
import { passageText } from "../../src/services/ingest/ingest-index.js";
import { adaptationFileOf } from "../../src/services/search/query-models.js";
import { topicPages } from "./adaptation-corpora.js";

describe("whole-model adaptation of a collection (kind model)", () => {
  let s: TestServer;
  let key: string;
  let source: string;
  let collection: string;
  let tenantId: string;
  /** the collection over the source once its first collection is deleted */
  let again: string;
  const env = { EMBEDDING_PROFILE: "quarry-static", ADAPT_AUTO_MIN_DOCUMENTS: "0" };
  // the suite's own directory: the last test restarts the server on it
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-adapt-model-"));
  beforeAll(async () => {
    s = await startServer(env, { listen: false, dataDir });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    ({ key, source, collection } = await indexedCollection(s, topicPages()));
    for (const t of await s.rt.store.tenants.list()) if (await s.rt.store.content.getCollection(t.id, collection)) tenantId = t.id;
    await s.rt.backfill.idle();
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const base = () => staticBaseOf(s.rt.embedder)!;
  const plain = { embed: (t: string) => base().encoder.embed(t) };
  async function adaptedEncoder(id: string) {
    const buf = await s.rt.files.read(tenantId, adaptationFileOf(id));
    return new AdaptedQueryEncoder(base().encoder, decodeQueryDelta(buf!));
  }

  /** the first chunk of each of the source's first documents, with the text the model embeds */
  async function someChunks(limit = 4) {
    const docs = await s.rt.store.content.listDocuments(tenantId, { sourceId: source, status: "indexed", limit });
    const hits = await s.rt.store.content.chunksInRanges(tenantId, docs.map((d) => ({ documentId: d.id, fromPosition: 0, toPosition: 0 })));
    return hits.map((c) => ({ id: c.id, text: passageText(c.title, c.heading_path, c.text) }));
  }
  /** the score the vector index gives each chunk for the vector `model` makes of its text: 1 when it is the stored one */
  async function storedScores(model: { embed(t: string): Float32Array }, chunks: { id: string; text: string }[]) {
    const out: number[] = [];
    for (const c of chunks) {
      const hits = await s.rt.store.content.vectorSearch(s.rt.activeProfile.index_name!, tenantId, [source], model.embed(c.text), 1);
      out.push(hits[0]?.chunkId === c.id ? hits[0].score : 0);
    }
    return out;
  }
  const adapt = (body: Record<string, unknown>, col = collection) => s.call("POST", `/collections/${col}/adapt`, { key, json: body });
  /** polls an adaptation job's Location until it ends; every phase it was seen in */
  async function follow(location: string) {
    const phases: string[] = [];
    for (const until = Date.now() + 150_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      const job = (await s.call("GET", location, { key })).body;
      if (phases.at(-1) !== job.progress.phase) phases.push(job.progress.phase);
      if (["completed", "failed", "cancelled"].includes(job.status)) return { job, phases };
    }
    throw new Error(`adaptation ${location} did not end`);
  }
  const settingsOf = async () => (await s.call("GET", `/collections/${collection}`, { key })).body.settings;

  it("applies when the held-out pairs improve, and the source's chunks are embedded again with it (a job by default)", async () => {
    const chunks = await someChunks();
    for (const x of await storedScores(plain, chunks)) expect(x).toBeGreaterThan(0.999);
    const r = await adapt({ kind: "model", apply: true });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ collection_id: collection, kind: "model", apply: true, status: "queued", result: null });
    const location = r.headers.get("location")!;
    expect(location).toBe(`/collections/${collection}/adaptations/${r.body.id}`);
    const { job, phases } = await follow(location);
    expect(job.status).toBe("completed");
    expect(job.progress).toEqual({ phase: "done", folds_done: 5, folds_total: 5 });
    // the phases seen while polling, in order (a fast phase may pass unseen)
    const order = ["queued", "training", "cross-validation", "applying", "done"];
    expect(phases.map((p) => order.indexOf(p))).toEqual([...phases.map((p) => order.indexOf(p))].sort((x, y) => x - y));
    expect(phases.at(-1)).toBe("done");
    const a = job.result;
    expect(a.kind).toBe("model");
    expect(a.pairs.total).toBe(60);
    expect(a.held_out.adapted.ndcg_at_10).toBeGreaterThan(a.held_out.base.ndcg_at_10);
    expect(a.apply).toMatchObject({ requested: true, allowed: true, applied: true });
    expect(a.apply.detail).toMatch(/embedded again/);
    expect(a.model_adaptation).toMatchObject({ kind: "model", enabled: true });
    await s.rt.backfill.idle();
    expect(await s.rt.store.content.countUnembedded(s.rt.activeProfile.index_name!, tenantId)).toBe(0);
    const adapted = await adaptedEncoder(a.model_adaptation.id);
    expect(adapted.bothSides).toBe(true);
    for (const x of await storedScores(adapted, chunks)) expect(x).toBeGreaterThan(0.999);
    // and no longer the base model's vectors
    for (const x of await storedScores(plain, chunks)) expect(x).toBeLessThan(0.99);
  }, 180_000);

  it("embeds a new document of the source with the collection's model", async () => {
    const id = (await settingsOf()).model_adaptation.id;
    expect((await upload(s, key, source, [{ name: "extra.md", content: "# Extra page\n\n## lake pond\n\nThe spreadsheet total sums every cell of the column and row.\n" }])).status).toBe(202);
    await waitIndexed(s, key, source, 60_000);
    await s.rt.backfill.idle();
    const docs = await s.rt.store.content.listDocuments(tenantId, { sourceId: source, status: "indexed", limit: 100 });
    const extra = docs.find((d) => d.source === "extra.md")!;
    const [c] = await s.rt.store.content.chunksInRanges(tenantId, [{ documentId: extra.id, fromPosition: 0, toPosition: 0 }]);
    const chunk = { id: c!.id, text: passageText(c!.title, c!.heading_path, c!.text) };
    expect((await storedScores(await adaptedEncoder(id), [chunk]))[0]).toBeGreaterThan(0.999);
  }, 120_000);

  it("cancels a queued and a running adaptation, which writes nothing; one already applying answers 409", async () => {
    const applied = (await settingsOf()).model_adaptation.id;
    const cancel = (id: string) => s.call("POST", `/collections/${collection}/adaptations/${id}/cancel`, { key });
    // the user's requests are timed by the run itself: sent when it reports its first fold (or
    // starts applying), through the store the service writes its progress with
    const store = s.rt.store.adaptations;
    const { setAdaptationProgress, transitionAdaptation } = store;
    const sent: Record<string, any> = {};
    let lastId = "";
    // the user's side, awaited by the test too: the run's row turns cancelled before the cancel's answer returns
    let user: Promise<void> | null = null;
    store.setAdaptationProgress = async (tenant, id, p) => {
      if (p.folds_done === 1 && !user) {
        user = (async () => {
          // a second adaptation waits its turn (one at a time): cancelled while queued
          sent.queued = (await adapt({ kind: "model", apply: true })).body;
          sent.queuedCancel = await cancel(sent.queued.id);
          sent.running = await cancel(id);
        })();
        await user;
      }
      return setAdaptationProgress.call(store, tenant, id, p);
    };
    store.transitionAdaptation = async (tenant, id, from, to, patch) => {
      const row = await transitionAdaptation.call(store, tenant, id, from, to, patch);
      if (to === "applying" && !sent.applying) sent.applying = await cancel(id);
      return row;
    };
    try {
      const first = (await adapt({ kind: "model", apply: true })).body;
      const { job } = await follow(`/collections/${collection}/adaptations/${first.id}`);
      await user;
      expect(sent.running.body).toMatchObject({ id: first.id, status: "cancelled", error: "The adaptation was cancelled." });
      // it stopped at that fold (whose progress it could no longer write), before the other four, and wrote nothing
      expect(job).toMatchObject({ status: "cancelled", result: null, progress: { phase: "cross-validation", folds_done: 0 } });
      expect(sent.queuedCancel.body).toMatchObject({ status: "cancelled", started_at: null });
      await expect.poll(() => s.rt.tuneQueue.pending(), { timeout: 30_000, interval: 20 }).toBe(0);
      expect((await s.call("GET", `/collections/${collection}/adaptations/${sent.queued.id}`, { key })).body).toMatchObject({ status: "cancelled", started_at: null });
      expect((await settingsOf()).model_adaptation.id).toBe(applied);
      expect(sent.applying).toBeUndefined();

      // once applying, the collection is being written: the cancel is refused, and the run completes
      lastId = (await adapt({ kind: "model", apply: true })).body.id;
      const done = (await follow(`/collections/${collection}/adaptations/${lastId}`)).job;
      expect(sent.applying.status).toBe(409);
      expect(sent.applying.body.detail).toMatch(/can no longer be cancelled: it passed its checks and is being written/);
      expect(done.status).toBe("completed");
      expect((await settingsOf()).model_adaptation.id).toBe(done.result.model_adaptation.id);
    } finally {
      store.setAdaptationProgress = setAdaptationProgress;
      store.transitionAdaptation = transitionAdaptation;
    }
    // ended: 409; through another collection: 404
    const again = await cancel(lastId);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/can no longer be cancelled: it is completed/);
    expect((await s.call("POST", `/collections/col_missing/adaptations/${sent.queued.id}/cancel`, { key })).status).toBe(404);
  }, 120_000);

  it("keeps its source out of other collections (409) while it is on, and refuses kind model for a shared source (422)", async () => {
    const other = (await s.call("POST", "/collections", { key, json: { name: "Other", data_source_ids: [source] } })).status;
    expect(other).toBe(409);
    const empty = (await s.call("POST", "/collections", { key, json: { name: "Empty" } })).body.id;
    const put = await s.call("PUT", `/collections/${empty}/data-sources/${source}`, { key });
    expect(put.status).toBe(409);
    expect(put.body.detail).toMatch(/whole-model adaptation/);
    // a collection over a source shared with another cannot adapt its whole model
    const shared = await createSource(s, key);
    const a = (await s.call("POST", "/collections", { key, json: { name: "A", data_source_ids: [shared] } })).body.id;
    expect((await s.call("POST", "/collections", { key, json: { name: "B", data_source_ids: [shared] } })).status).toBe(201);
    // answered at once, before a job is queued
    const r = await adapt({ kind: "model" }, a);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toMatch(/also in collection/);
    expect((await s.call("GET", `/collections/${a}/adaptations`, { key })).body).toEqual([]);
  }, 60_000);

  it("in the request with background: false, and a job that cannot run says why", async () => {
    const r = await adapt({ kind: "model", background: false });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe("model");
    expect(r.body.apply).toMatchObject({ requested: false, applied: false });
    // a collection of three pages has too few heading pairs: the job fails with the detail the request would have had
    const small = await createSource(s, key);
    await upload(s, key, small, topicPages().slice(0, 3));
    await waitIndexed(s, key, small, 60_000);
    const c = (await s.call("POST", "/collections", { key, json: { name: "Small", data_source_ids: [small] } })).body.id;
    const queued = await adapt({ kind: "model", apply: true }, c);
    expect(queued.status).toBe(202);
    const { job } = await follow(queued.headers.get("location")!);
    expect(job).toMatchObject({ status: "failed", result: null });
    expect(job.error).toMatch(/at least 40/);
    // each collection lists its own jobs; another collection's id is not found through this one
    const mine = (await s.call("GET", `/collections/${collection}/adaptations`, { key })).body;
    expect(mine.map((j: any) => j.status)).toEqual(["completed", "cancelled", "cancelled", "completed"]);
    expect((await s.call("GET", `/collections/${c}/adaptations`, { key })).body.map((j: any) => j.id)).toEqual([queued.body.id]);
    expect((await s.call("GET", `/collections/${collection}/adaptations/${queued.body.id}`, { key })).status).toBe(404);
  }, 120_000);

  it("turned off, embeds the chunks with the base model again; turned on, with the adaptation", async () => {
    const settings = await settingsOf();
    const chunks = await someChunks();
    const adapted = await adaptedEncoder(settings.model_adaptation.id);
    const off = await s.call("PATCH", `/collections/${collection}`, { key, json: { settings: { ...settings, model_adaptation: { ...settings.model_adaptation, enabled: false } } } });
    expect(off.status).toBe(200);
    await s.rt.backfill.idle();
    for (const x of await storedScores(plain, chunks)) expect(x).toBeGreaterThan(0.999);
    const on = await s.call("PATCH", `/collections/${collection}`, { key, json: { settings } });
    expect(on.status).toBe(200);
    await s.rt.backfill.idle();
    for (const x of await storedScores(adapted, chunks)) expect(x).toBeGreaterThan(0.999);
  }, 120_000);

  it("deleted with its collection, leaves the source's chunks with the base model's vectors, free to join another collection", async () => {
    const chunks = await someChunks();
    expect((await s.call("DELETE", `/collections/${collection}`, { key })).status).toBe(204);
    await s.rt.backfill.idle();
    for (const x of await storedScores(plain, chunks)) expect(x).toBeGreaterThan(0.999);
    const r = await s.call("POST", "/collections", { key, json: { name: "Again", data_source_ids: [source] } });
    expect(r.status).toBe(201);
    again = r.body.id;
  }, 60_000);

  it("an adaptation job left running by a crash runs again after a restart", async () => {
    const T = new Date().toISOString();
    const row = { tenant_id: tenantId, collection_id: again, kind: "queries", trigger: "request" as const, apply: false, result: null, error: null, created_at: T, finished_at: null };
    // rows without a queue job: a crash after the row was written, and one in the middle of its run
    await s.rt.store.adaptations.createAdaptation({ ...row, id: "adp_queued", status: "queued", phase: "queued", folds_done: 0, started_at: null });
    await s.rt.store.adaptations.createAdaptation({ ...row, id: "adp_crashed", status: "running", phase: "cross-validation", folds_done: 2, started_at: T });
    // an automatic run's job is the collection's, which the queue itself retries: recovery leaves its row to that run
    await s.rt.store.adaptations.createAdaptation({ ...row, id: "adp_auto", trigger: "automatic", status: "running", phase: "training", folds_done: 0, started_at: T });
    await s.close();
    s = await startServer(env, { listen: false, dataDir });
    for (const id of ["adp_queued", "adp_crashed"]) {
      const { job } = await follow(`/collections/${again}/adaptations/${id}`);
      expect(job).toMatchObject({ status: "completed", progress: { phase: "done", folds_done: 5 }, error: null });
      expect(job.result).toMatchObject({ kind: "queries", apply: { requested: false, applied: false } });
    }
    expect((await s.call("GET", `/collections/${again}/adaptations/adp_auto`, { key })).body).toMatchObject({ status: "running", trigger: "automatic" });
  }, 120_000);
});
