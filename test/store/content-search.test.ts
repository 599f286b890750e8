// Conformance of lexical and vector search on both backends: BM25 statistics per tenant, source
// scoping, phrase boosts, vector search restricted to a collection's sources; and the two
// backends' lexical rankings side by side on one corpus.
import { afterEach, describe, expect, it } from "vitest";
import type { NewChunk } from "../../src/store/content-types.js";
import type { ContentStore } from "../../src/store/content-store.js";
import type { LexicalQuery, LexicalWeights } from "../../src/search/lexical/types.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";
import { describeEachContentStore, openBoth, type ContentBackend } from "./content-backends.js";
import { searchParams } from "../../src/store/postgres/content/lexical.js";
import { searchSql } from "../../src/store/postgres/content/lexical-sql.js";

const cleanup: ContentBackend[] = [];
afterEach(async () => {
  for (const b of cleanup.splice(0).reverse()) await b.close();
});

const W: LexicalWeights = { title: 3, headings: 2, body: 1 };
/** normalised words and phrases as the engine hands them to a store */
const q = (terms: string[], phrases: string[][] = []): LexicalQuery => analyzeQuery({ terms, phrases }, DEFAULT_ANALYZER);
const chunk = (position: number, text: string, heading_path: string[] = []): NewChunk => ({ position, text, heading_path, token_count: 5, metadata: {} });

async function source(c: ContentStore, tenant: string, id: string): Promise<void> {
  await c.createSource({ id, tenant_id: tenant, name: id, source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: new Date().toISOString() }, [], null);
}

async function index(c: ContentStore, tenant: string, src: string, id: string, title: string, texts: string[], vectors?: { indexName: string; values: Float32Array[] }) {
  await c.upsertDocuments(tenant, src, [{ id, source: `${id}.txt`, title, source_type: "upload", kind: "text", content_type: "text/plain", size_bytes: 1, content_hash: id, metadata: {} }], null);
  await c.replaceDocumentIndex(tenant, id, { title, metadata: {} }, texts.map((t, i) => chunk(i, t, i % 2 ? ["Guide", "Setup"] : [])), vectors ?? null);
}

const unit = (xs: number[]) => {
  const n = Math.hypot(...xs);
  return new Float32Array(xs.map((x) => x / n));
};

describeEachContentStore("content store: search", (open) => {
  it("a batch of documents written at once scores, counts and replaces exactly as one write per document", async () => {
    const b = await open();
    cleanup.push(b);
    const c = b.content;
    await b.addTenants("one", "batch");
    const docs = Array.from({ length: 12 }, (_, i) => ({ id: `d${i}`, title: i % 3 ? "Cache notes" : "Network notes", texts: [`cache ${i} memory disk`, `network latency ${"packet ".repeat(i % 4)}`] }));
    // document ids are unique across tenants in SQLite: each tenant's ids carry its name
    const add = (t: string, ids: string[]) =>
      c.upsertDocuments(t, `s${t}`, ids.map((id) => ({ id: `${t}-${id}`, source: `${id}.txt`, title: id, source_type: "upload", kind: "text", content_type: "text/plain", size_bytes: 1, content_hash: id, metadata: {} })), null);
    for (const t of ["one", "batch"]) {
      await source(c, t, `s${t}`);
      await add(t, [...docs.map((d) => d.id), "gone"]);
    }
    const write = (d: (typeof docs)[number], t = "batch") => ({ documentId: `${t}-${d.id}`, doc: { title: d.title, metadata: { n: d.id } }, chunks: d.texts.map((x, i) => chunk(i, x)), vectors: null });
    for (const d of docs) await c.replaceDocumentIndex("one", `one-${d.id}`, write(d).doc, write(d).chunks, null);
    await c.deleteDocument("batch", "batch-gone");
    // a first version of d0 replaced inside the batch's store write, and a deleted document skipped
    await c.replaceDocumentIndex("batch", "batch-d0", { title: "old", metadata: {} }, [chunk(0, "obsolete cache cache cache")], null);
    await c.replaceDocumentsIndex("batch", [...docs.map((d) => write(d)), { ...write(docs[1]!), documentId: "batch-gone" }]);
    await c.replaceDocumentIndex("one", "one-gone", { title: "x", metadata: {} }, [chunk(0, "unrelated")], null);
    await c.deleteDocument("one", "one-gone");
    for (const query of [q(["cache", "memory"]), q(["network", "packet", "obsolete"])]) {
      const [one, batch] = await Promise.all(["one", "batch"].map((t) => c.lexicalSearch(t, [`s${t}`], query, 20, W)));
      const keyed = async (t: string, hits: { chunkId: string; score: number }[]) => {
        const rows = await c.hydrateChunks(t, hits.map((h) => h.chunkId));
        return hits.map((h) => [`${rows.get(h.chunkId)!.document_id.slice(t.length)}#${rows.get(h.chunkId)!.position}`, h.score.toFixed(9)]);
      };
      expect(one!.length).toBeGreaterThan(0);
      expect(await keyed("batch", batch!)).toEqual(await keyed("one", one!));
    }
    const d5 = await c.getDocument("batch", "batch-d5");
    expect([d5?.status, d5?.chunk_count, d5?.title, d5?.metadata]).toEqual(["indexed", 2, "Cache notes", { n: "d5" }]);
    expect(await c.getDocument("batch", "batch-gone")).toBeNull();
  });

  it("BM25 statistics are the tenant's own: another tenant's writes leave its scores unchanged", async () => {
    const b = await open();
    cleanup.push(b);
    const c = b.content;
    await b.addTenants("a", "b");
    await source(c, "a", "sa");
    await source(c, "b", "sb");
    await index(c, "b", "sb", "b1", "Rust", ["memory safety without garbage collection", "borrow checker rules"]);
    await index(c, "b", "sb", "b2", "Go", ["garbage collection pauses are short"]);
    const before = await c.lexicalSearch("b", ["sb"], q(["garbage", "collection"]), 10, W);
    expect(before.length).toBe(2);
    for (let i = 0; i < 20; i++) await index(c, "a", "sa", `a${i}`, "GC", [`garbage collection number ${i} garbage`]);
    const after = await c.lexicalSearch("b", ["sb"], q(["garbage", "collection"]), 10, W);
    expect(after).toEqual(before);
    // and tenant a never sees b's chunks, even when naming b's source
    expect(await c.lexicalSearch("a", ["sb"], q(["garbage"]), 10, W)).toEqual([]);
    // deleting a's content brings nothing of it back into b's statistics either
    await c.deleteSource("a", "sa");
    expect(await c.lexicalSearch("b", ["sb"], q(["garbage", "collection"]), 10, W)).toEqual(before);
  });

  it("answers the term dictionary: frequencies, prefix bands by length and frequency, the tenant's only; weighted and ruled terms", async () => {
    const b = await open();
    cleanup.push(b);
    const c = b.content;
    await b.addTenants("t", "u");
    await source(c, "t", "s1");
    await source(c, "u", "s2");
    await index(c, "t", "s1", "d1", "Kubernetes", ["kubectl and kubelet", "kubelet again", "kube"]);
    await index(c, "u", "s2", "d2", "Other", ["kubeadm kubeadm"]);
    const a = await c.lexicalTerms("t", {
      terms: ["kubelet", "kubeadm", "nothing"],
      ranges: [
        { prefix: "kube", minLength: 5, maxLength: 7, limit: 10 },
        { prefix: "kube", minLength: 1, maxLength: 100, limit: 2 },
        { prefix: "zz", minLength: 1, maxLength: 100, limit: 5 },
      ],
    });
    expect(a.docCount).toBe(3);
    expect(a.df).toEqual(new Map([["kubelet", 2]]));
    // the title's stem kubernet is in all 3 chunks; bands hold 5-7 characters, or the 2 most frequent
    expect(a.ranges).toEqual([
      [
        { term: "kubelet", df: 2 },
        { term: "kubectl", df: 1 },
      ],
      [
        { term: "kubernet", df: 3 },
        { term: "kubelet", df: 2 },
      ],
      [],
    ]);
    // an added term's weight scales its score, and the store names the rule a hit matched through
    const plain = await c.lexicalSearch("t", ["s1"], q(["kube"]), 10, W);
    const added = await c.lexicalSearch("t", ["s1"], { terms: [{ term: "kube", count: 1, weight: 0.5, rule: "prefix" }], phrases: [] }, 10, W);
    expect(added.map((h) => h.chunkId)).toEqual(plain.map((h) => h.chunkId));
    expect(added[0]!.score).toBeCloseTo(plain[0]!.score / 2, 9);
    expect(added[0]!.rules).toEqual(["prefix"]);
    expect(plain[0]!.rules).toBeUndefined();
  });

  it("searches only the given sources, weights titles, and boosts a phrase as written", async () => {
    const b = await open();
    cleanup.push(b);
    const c = b.content;
    await b.addTenants("t");
    await source(c, "t", "s1");
    await source(c, "t", "s2");
    await index(c, "t", "s1", "d1", "Notes", ["the connection reset by the peer was logged"]);
    await index(c, "t", "s1", "d2", "Notes", ["reset the router, then check the connection"]);
    await index(c, "t", "s2", "d3", "Connection reset", ["unrelated body text"]);
    for (let i = 0; i < 12; i++) await index(c, "t", "s2", `filler${i}`, "Other", [`nothing to see in note ${i}`]);
    const only1 = await c.lexicalSearch("t", ["s1"], q(["connection", "reset"]), 10, W);
    const hits1 = await c.hydrateChunks("t", only1.map((h) => h.chunkId));
    expect([...hits1.values()].every((h) => h.data_source_id === "s1")).toBe(true);
    const withPhrase = await c.lexicalSearch("t", ["s1"], q(["connection", "reset"], [["connection", "reset"]]), 10, W);
    expect((await c.hydrateChunks("t", [withPhrase[0]!.chunkId])).get(withPhrase[0]!.chunkId)!.document_id).toBe("d1");
    expect(withPhrase[0]!.score).toBeGreaterThan(only1.find((h) => h.chunkId === withPhrase[0]!.chunkId)!.score);
    const both = await c.lexicalSearch("t", ["s1", "s2"], q(["connection", "reset"]), 1, W);
    expect((await c.hydrateChunks("t", [both[0]!.chunkId])).get(both[0]!.chunkId)!.document_id).toBe("d3"); // title weight
    expect(await c.lexicalSearch("t", [], q(["reset"]), 10, W)).toEqual([]);
    expect(await c.lexicalSearch("t", ["s1"], q(["nothingmatches"]), 10, W)).toEqual([]);
  });

  for (const path of ["exact", "hnsw"] as const) {
    it(`vector search stays inside the collection's sources and the tenant (${path} scan)`, async () => {
      const b = await open({ pg: { vectors: { exactBelow: path === "exact" ? 1_000_000 : 0, graphFrom: 0 } }, sqliteVectors: "exact" });
      cleanup.push(b);
      const c = b.content;
      await b.addTenants("t", "u");
      await c.ensureVectorIndex("test_vec", 4);
      await source(c, "t", "s1");
      await source(c, "t", "s2");
      await source(c, "u", "s3");
      expect(await c.embeddedIndex()).toBeNull();
      await index(c, "t", "s1", "d1", "One", ["a", "b"], { indexName: "test_vec", values: [unit([1, 0, 0, 0]), unit([0.9, 0.1, 0, 0])] });
      expect(await c.embeddedIndex()).toBe("test_vec");
      await index(c, "t", "s2", "d2", "Two", ["c"], { indexName: "test_vec", values: [unit([1, 0.01, 0, 0])] });
      await index(c, "u", "s3", "d3", "Three", ["d"], { indexName: "test_vec", values: [unit([1, 0, 0, 0])] });
      await index(c, "t", "s1", "d4", "Four", ["e"]); // no model: waits for the backfill
      expect(await c.countUnembedded("test_vec", "t")).toBe(1);
      const pending = await c.unembeddedChunks("test_vec", 10, "t");
      expect(pending.map((x) => x.document_id)).toEqual(["d4"]);
      await c.storeEmbeddings("test_vec", [{ chunkId: pending[0]!.id, vector: unit([0, 0, 0, 1]) }]);
      expect(await c.countUnembedded("test_vec")).toBe(0);
      const hits = await c.vectorSearch("test_vec", "t", ["s1"], unit([1, 0, 0, 0]), 10);
      const docs = await c.hydrateChunks("t", hits.map((h) => h.chunkId));
      expect(hits.map((h) => docs.get(h.chunkId)!.document_id)).toEqual(["d1", "d1", "d4"]);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(hits[2]!.score).toBeCloseTo(0, 5);
      expect(await c.vectorSearch("test_vec", "t", ["s3"], unit([1, 0, 0, 0]), 10)).toEqual([]);
      // deleting a document takes its vectors out of search
      await c.deleteDocument("t", "d1");
      expect((await c.vectorSearch("test_vec", "t", ["s1", "s2"], unit([1, 0, 0, 0]), 1)).length).toBe(1);
      const st = await c.vectorIndexStatus("test_vec");
      expect(st.kind).toMatch(b.kind === "postgres" ? /pgvector/ : /sqlite-vec|usearch/);
    });
  }

  it("PostgreSQL stores new vector tables as halfvec, and a float4 table made before still searches and takes vectors", async () => {
    const b = await open({ pg: { vectors: { exactBelow: 1_000_000 } } });
    cleanup.push(b);
    if (b.kind !== "postgres") return; // SQLite keeps float32 vectors
    const c = b.content;
    await b.addTenants("t");
    await c.ensureVectorIndex("half_vec", 4);
    await source(c, "t", "s1");
    const type = async () => (await b.sql<{ t: string }>("SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'vec_half_vec'::regclass AND attname = 'embedding'"))[0]!.t;
    expect(await type()).toBe("halfvec(4)");
    expect((await c.vectorIndexStatus("half_vec")).kind).toMatch(/halfvec/);
    await index(c, "t", "s1", "d1", "One", ["a", "b"], { indexName: "half_vec", values: [unit([1, 0, 0, 0]), unit([0.6, 0.8, 0, 0])] });
    const hits = await c.vectorSearch("half_vec", "t", ["s1"], unit([0.6, 0.8, 0, 0]), 2);
    expect(hits[0]!.score).toBeCloseTo(1, 3);
    expect(hits[1]!.score).toBeCloseTo(0.6, 3);
    // the backfill's write path casts to the column's type as well
    await index(c, "t", "s1", "d2", "Two", ["c"]);
    const pending = await c.unembeddedChunks("half_vec", 10, "t");
    await c.storeEmbeddings("half_vec", [{ chunkId: pending[0]!.id, vector: unit([0, 0, 1, 0]) }]);
    expect((await c.vectorSearch("half_vec", "t", ["s1"], unit([0, 0, 1, 0]), 1))[0]!.score).toBeCloseTo(1, 3);
    // the float4 form of a table made before halfvec, met by another process (its own cache)
    await b.sql("DROP INDEX vec_half_vec_hnsw");
    await b.sql("ALTER TABLE vec_half_vec ALTER COLUMN embedding TYPE vector(4)");
    expect(await type()).toBe("vector(4)");
    const older = await b.reopen();
    cleanup.push(older);
    await index(older.content, "t", "s1", "d3", "Three", ["d"], { indexName: "half_vec", values: [unit([0, 0, 0, 1])] });
    const again = await older.content.vectorSearch("half_vec", "t", ["s1"], unit([0, 0, 0, 1]), 4);
    expect(again[0]!.score).toBeCloseTo(1, 5);
    expect(again).toHaveLength(4);
    expect((await older.content.vectorIndexStatus("half_vec")).kind).toMatch(/pgvector vector/);
  });
});

describe("lexical rankings: PostgreSQL against SQLite on one corpus", () => {
  const words = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega network router packet latency cache memory disk".split(" ");
  const rand = (() => {
    let s = 42;
    return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  })();
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() ** 2 * words.length)]).join(" ");

  it("ranks the same chunks with the same scores, with phrases and field weights", async () => {
    const { backends, skipped } = await openBoth();
    cleanup.push(...backends);
    if (skipped) {
      console.warn(`skipping the PostgreSQL comparison: ${skipped}`);
      return;
    }
    const corpus = Array.from({ length: 80 }, (_, i) => ({ id: `d${i}`, title: text(3), chunks: [text(20 + (i % 30)), text(8), `Résumé CAFÉ ${text(5)}`] }));
    const chunkOrder: string[][] = [];
    for (const b of backends) {
      await b.addTenants("t");
      await source(b.content, "t", "s");
      for (const d of corpus) await index(b.content, "t", "s", d.id, d.title, d.chunks);
      // a replaced and a deleted document: statistics must follow
      await index(b.content, "t", "s", "d3", "replaced", ["network latency again"]);
      await b.content.deleteDocument("t", "d7");
    }
    const queries: [LexicalQuery, LexicalWeights][] = [
      [q(["network", "latency"]), W],
      [q(["alpha", "omega", "cache", "disk"]), { title: 1, headings: 1, body: 1 }],
      [q(["memory", "cache"], [["memory", "cache"]]), W],
      [q(["resume", "cafe"]), W],
      [q(["sigma", "sigma", "packets"]), { title: 5, headings: 0, body: 1 }],
      // many terms, common and rare
      [q(["alpha", "beta", "gamma", "network", "router", "omega", "disk"]), W],
      [q(["alpha", "beta", "gamma", "delta", "lambda", "sigma"]), { title: 1, headings: 1, body: 1 }],
    ];
    // small and larger limits: ties at the cut, and cuts deep in the list
    const cases = queries.flatMap(([query, w]) => [1, 4, 15].map((k) => [query, w, k] as const));
    for (const [query, w, k] of cases) {
      const results = [];
      for (const b of backends) {
        const hits = await b.content.lexicalSearch("t", ["s"], query, k, w);
        const rows = await b.content.hydrateChunks("t", hits.map((h) => h.chunkId));
        results.push(hits.map((h) => ({ key: `${rows.get(h.chunkId)!.document_id}#${rows.get(h.chunkId)!.position}`, score: h.score })));
      }
      const [lite, pg] = results;
      expect(lite!.length).toBeGreaterThan(0);
      // scores agree to float rounding; chunks tied at the cut may differ, none above it
      pg!.forEach((h, i) => expect(h.score).toBeCloseTo(lite![i]!.score, 9));
      const cut = lite![lite!.length - 1]!.score + 1e-9;
      const pgScores = new Map(pg!.map((h) => [h.key, h.score]));
      for (const h of lite!.filter((x) => x.score > cut)) expect(pgScores.get(h.key), h.key).toBeCloseTo(h.score, 9);
      chunkOrder.push(pg!.map((h) => h.key));
    }
    expect(chunkOrder.length).toBe(cases.length);
    // PostgreSQL's statement for phrase-free queries skips the chunks join (lexical-sql.ts): the
    // same rows, scores, rules and (no) phrase candidates as the statement that reads the chunks
    const pgBackend = backends.find((b) => b.kind === "postgres")!;
    for (const [query, w, k] of cases.filter(([query]) => query.phrases.length === 0)) {
      const params = searchParams("t", ["s"], query, k, w);
      const [joined, plain] = await Promise.all([true, false].map((phrases) => pgBackend.sql(searchSql(null, phrases), params)));
      expect(plain.length).toBeGreaterThan(0);
      expect(plain).toEqual(joined);
    }
  });
});
