// Issue 27 item 4, the whole-model kind: a collection's model adapted on its own text (queries and
// passages), applied only when the held-out pairs improve; its data sources' chunks embedded again
// with it (and again with the base model when it is turned off or the collection deleted), new
// documents embedded with it, and its sources kept out of other collections meanwhile. Through
// HTTP with the real store and the shipped model file; a chunk's stored vector is read back by
// asking the vector index for the vector a model makes of its text (score 1: the same vector).
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
  beforeAll(async () => {
    s = await startServer({ EMBEDDING_PROFILE: "quarry-static", ADAPT_AUTO_MIN_DOCUMENTS: "0" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    ({ key, source, collection } = await indexedCollection(s, topicPages()));
    for (const t of await s.rt.store.tenants.list()) if (await s.rt.store.content.getCollection(t.id, collection)) tenantId = t.id;
    await s.rt.backfill.idle();
  }, 180_000);
  afterAll(async () => s?.close());

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
  const settingsOf = async () => (await s.call("GET", `/collections/${collection}`, { key })).body.settings;

  it("applies when the held-out pairs improve, and the source's chunks are embedded again with it", async () => {
    const chunks = await someChunks();
    for (const x of await storedScores(plain, chunks)) expect(x).toBeGreaterThan(0.999);
    const r = await adapt({ kind: "model", apply: true });
    expect(r.status).toBe(200);
    const a = r.body;
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
    const r = await adapt({ kind: "model" }, a);
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toMatch(/also in collection/);
  }, 60_000);

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
    expect((await s.call("POST", "/collections", { key, json: { name: "Again", data_source_ids: [source] } })).status).toBe(201);
  }, 60_000);
});
