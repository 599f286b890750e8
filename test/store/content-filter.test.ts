// Issue 28 item 1 on both stores: a filtered search is the top k of the filtered set. Random
// filters over random documents are held to a brute-force reference written here from the
// MongoDB rules (not from the stores' code): no chunk outside the filter is ever returned, and
// the filtered lists equal the unfiltered full ranking cut to the filter, for BM25 and vectors
// (the exact scan, and PostgreSQL's HNSW walk with iterative scans).
import { afterEach, expect, it } from "vitest";
import type { ContentStore } from "../../src/store/content-store.js";
import type { LexicalWeights } from "../../src/search/lexical/types.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";
import { parseFilter } from "../../src/search/filter/parse.js";
import { describeEachContentStore, type ContentBackend } from "./content-backends.js";
import { fieldValue, holds, type FilterDoc as Doc } from "../helpers/filter-reference.js";
import { facetAnswer, parseFacets } from "../../src/search/filter/facets.js";

const cleanup: ContentBackend[] = [];
afterEach(async () => {
  for (const b of cleanup.splice(0).reverse()) await b.close();
});

const W: LexicalWeights = { title: 2, headings: 1.5, body: 1 };
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
const SOURCES = ["s1", "s2", "s3"];

/** a small deterministic generator (mulberry32), so a failure can be replayed from its seed */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof rng>;


const DATES = ["2025-03-01T00:00:00.000Z", "2025-11-15T08:30:00.000Z", "2026-01-01T00:00:00.000Z", "2026-06-30T23:59:59.000Z", "2026-11-27T12:00:00.000Z"];

function randomMetadata(r: Rng): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  const maybe = (p: number, key: string, v: () => unknown) => {
    if (r.next() < p) m[key] = v();
  };
  maybe(0.8, "product", () => r.pick(["cli", "api", "web", "Web"]));
  maybe(0.7, "price", () => r.pick([0, 5, 10, 12.5, 99, -1, "10"]));
  maybe(0.5, "flag", () => r.next() < 0.5);
  maybe(0.5, "released", () => r.pick(DATES).slice(0, 10));
  maybe(0.3, "tags", () => ["x", "y"]);
  maybe(0.3, "note", () => null);
  maybe(0.5, "nested", () => (r.next() < 0.8 ? { level: r.int(4) } : "flat"));
  maybe(0.3, "file_type", () => r.pick(["csv", "json"]));
  return m;
}

// ---- random filters ----

const METADATA_VALUES: Record<string, unknown[]> = {
  "metadata.product": ["cli", "api", "web", "Web", "none"],
  "metadata.price": [0, 5, 10, 12.5, 99, "10", -1],
  "metadata.flag": [true, false],
  "metadata.released": DATES.map((x) => x.slice(0, 10)),
  "metadata.nested.level": [0, 1, 2, 3],
  "metadata.tags": ["x"],
  "metadata.note": ["x", 0],
  "metadata.missing": ["a", 1],
};

function randomCondition(r: Rng, docs: Doc[]): Record<string, unknown> {
  const columns: [string, () => unknown][] = [
    ["data_source_id", () => `t-${r.pick(SOURCES)}`],
    ["document_id", () => r.pick(docs).id],
    ["file_type", () => r.pick(["text", "markdown", "pdf", "csv", "json"])],
    ["created_at", () => r.pick(DATES)],
    ["updated_at", () => r.pick(DATES).slice(0, 10)],
  ];
  const useColumn = r.next() < 0.35;
  const [name, value] = useColumn ? r.pick(columns) : (([k, vs]) => [k, () => r.pick(vs)] as [string, () => unknown])(r.pick(Object.entries(METADATA_VALUES)));
  const ranged = (v: unknown) => typeof v === "number" || typeof v === "string";
  const ops = ["bare", "$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", ...(useColumn ? [] : ["$exists"])];
  const op = r.pick(ops);
  const v = value();
  if (op === "bare") return { [name]: v };
  if (op === "$in" || op === "$nin") return { [name]: { [op]: Array.from({ length: r.int(4) }, value) } };
  if (op === "$exists") return { [name]: { $exists: r.next() < 0.5 } };
  if (op.startsWith("$g") || op.startsWith("$l")) return ranged(v) ? { [name]: { [op]: v } } : { [name]: v };
  return { [name]: { [op]: v } };
}

function randomFilter(r: Rng, docs: Doc[], depth = 0): Record<string, unknown> {
  const roll = r.next();
  if (depth >= 3 || roll < 0.45) return randomCondition(r, docs);
  const n = 1 + r.int(3);
  if (roll < 0.65) return { $and: Array.from({ length: n }, () => randomFilter(r, docs, depth + 1)) };
  if (roll < 0.85) return { $or: Array.from({ length: n }, () => randomFilter(r, docs, depth + 1)) };
  if (roll < 0.93) return { $not: randomFilter(r, docs, depth + 1) };
  return { ...randomCondition(r, docs), ...randomCondition(r, docs) };
}

// ---- the corpus ----

function unitVector(r: Rng): Float32Array {
  const xs = [r.next() - 0.5, r.next() - 0.5, r.next() - 0.5, r.next() - 0.5];
  const n = Math.hypot(...xs);
  return new Float32Array(xs.map((x) => x / n));
}

async function corpus(b: ContentBackend, r: Rng, count: number): Promise<Doc[]> {
  const c: ContentStore = b.content;
  await b.addTenants("t", "other");
  for (const t of ["t", "other"]) {
    for (const s of SOURCES) {
      await c.createSource({ id: `${t}-${s}`, tenant_id: t, name: s, source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: DATES[0]! }, [], null);
    }
  }
  await c.ensureVectorIndex("filter_vec", 4);
  const docs: Doc[] = [];
  for (let i = 0; i < count; i++) {
    const tenant = i % 7 === 6 ? "other" : "t"; // another tenant's documents, which must never appear
    const d: Doc = {
      id: `doc${i}`,
      data_source_id: `${tenant}-${r.pick(SOURCES)}`,
      kind: r.pick(["text", "markdown", "pdf", null]),
      created_at: r.pick(DATES),
      updated_at: r.pick(DATES),
      metadata: randomMetadata(r),
    };
    const texts = Array.from({ length: 1 + r.int(2) }, () => `common ${Array.from({ length: 1 + r.int(6) }, () => r.pick(WORDS)).join(" ")}`);
    await c.upsertDocuments(tenant, d.data_source_id, [{ id: d.id, source: `${d.id}.txt`, title: `Doc ${i}`, source_type: "upload", kind: d.kind ?? null, content_type: null, size_bytes: 1, content_hash: d.id, metadata: d.metadata }], null);
    const chunks = texts.map((text, position) => ({ position, text, heading_path: [], token_count: 3, metadata: {} }));
    await c.replaceDocumentIndex(tenant, d.id, { title: `Doc ${i}`, metadata: d.metadata }, chunks, { indexName: "filter_vec", values: texts.map(() => unitVector(r)) });
    await b.sql("UPDATE documents SET created_at = ?, updated_at = ? WHERE id = ?", [d.created_at, d.updated_at, d.id]);
    if (tenant === "t") docs.push(d);
  }
  return docs;
}

const TENANT_SOURCES = SOURCES.map((s) => `t-${s}`);

/**
 * The same top k: the same scores in order (to 9 decimals: PostgreSQL sums a chunk's BM25 in the
 * order its rows arrive, so equal scores may differ in the last bit), the same chunks above the
 * k-th score, and only chunks that pass (`passes`) anywhere, ties at the cut included.
 */
function expectSameTopK(got: { chunkId: string; score: number }[], expected: { chunkId: string; score: number }[], passes: (id: string) => boolean, what: string) {
  const r9 = (x: number) => Number(x.toFixed(9));
  expect(got.map((h) => r9(h.score)), what).toEqual(expected.map((h) => r9(h.score)));
  expect(got.filter((h) => !passes(h.chunkId)), what).toEqual([]);
  const cut = expected.length > 0 ? r9(expected[expected.length - 1]!.score) : Infinity;
  const above = (hs: { chunkId: string; score: number }[]) => hs.filter((h) => r9(h.score) > cut).map((h) => h.chunkId).sort();
  expect(above(got), what).toEqual(above(expected));
}

describeEachContentStore("content store: filtered search", (open, kind) => {
  // "hnsw": PostgreSQL walks its graph with iterative scans; SQLite asks its graphs (or, while they
  // build, the exact scan) for more and more neighbours until k pass the filter
  for (const vectors of ["exact", "hnsw"] as const) {
    it(`returns the top k of the filtered set, never a chunk outside it (${vectors} vectors)`, async () => {
      const b = await open({
        pg: { vectors: { exactBelow: vectors === "exact" ? 1_000_000 : 0, graphFrom: 0 } },
        sqliteVectors: vectors,
        sqliteFilterExactBelow: vectors === "exact" ? 1_000_000 : 0,
      });
      cleanup.push(b);
      const c = b.content;
      const r = rng((kind === "sqlite" ? 28 : 30) + (vectors === "exact" ? 0 : 1));
      const docs = await corpus(b, r, 90);
      const byId = new Map(docs.map((d) => [d.id, d]));
      const query = analyzeQuery({ terms: ["common", "alpha", "delta"], phrases: [] }, DEFAULT_ANALYZER);
      const all = await c.lexicalSearch("t", TENANT_SOURCES, query, 1000, W);
      const probe = unitVector(r);
      const allNear = await c.vectorSearch("filter_vec", "t", TENANT_SOURCES, probe, 1000);
      const docOf = await c.chunkDocuments("t", [...new Set([...all, ...allNear].map((h) => h.chunkId))]);
      expect(all.length).toBe(docOf.size); // every chunk of the tenant matches "common"
      const k = 10;
      let nonEmpty = 0;
      for (let round = 0; round < 60; round++) {
        const json = randomFilter(r, docs);
        const filter = parseFilter(json);
        const passes = (id: string) => holds(json, byId.get(docOf.get(id)!)!);
        const lexical = await c.lexicalSearch("t", TENANT_SOURCES, query, k, W, filter);
        const expectedLexical = all.filter((h) => passes(h.chunkId)).slice(0, k);
        expectSameTopK(lexical, expectedLexical, passes, JSON.stringify(json));
        const near = await c.vectorSearch("filter_vec", "t", TENANT_SOURCES, probe, k, filter);
        const expectedNear = allNear.filter((h) => passes(h.chunkId)).slice(0, k);
        expect(near.map((h) => h.chunkId), JSON.stringify(json)).toEqual(expectedNear.map((h) => h.chunkId));
        if (expectedLexical.length > 0) nonEmpty++;
      }
      // the generator must exercise filters that keep something
      expect(nonEmpty).toBeGreaterThan(20);
    }, 120_000);
  }

  it("follows the documented rules on chosen cases", async () => {
    const b = await open({ sqliteVectors: "exact" });
    cleanup.push(b);
    const c = b.content;
    const docs = await corpus(b, rng(7), 40);
    const byId = new Map(docs.map((d) => [d.id, d]));
    const query = analyzeQuery({ terms: ["common"], phrases: [] }, DEFAULT_ANALYZER);
    const cases: Record<string, unknown>[] = [
      { "metadata.product": "cli" },
      { "metadata.product": { $ne: "cli" } }, // absent counts as not equal
      { "metadata.product": { $nin: ["cli", "api"] } },
      { "metadata.price": { $gt: 5 } }, // the string "10" is not a number
      { "metadata.price": "10" },
      { "metadata.price": { $gte: 10, $lt: 99 } },
      { "metadata.tags": "x" }, // arrays never equal a scalar
      { "metadata.note": { $exists: true } }, // a JSON null is present
      { "metadata.nested.level": { $in: [1, 2] } },
      { "metadata.released": { $gte: "2026-01-01" } },
      { file_type: "csv" },
      { file_type: { $in: ["pdf", "text"] } },
      { created_at: { $gte: "2026-01-01", $lt: "2026-11-27T12:00:00Z" } },
      { $not: { data_source_id: "t-s1" } },
      { $or: [{ "metadata.flag": true }, { "metadata.missing": { $exists: false }, document_id: "doc3" }] },
      {},
    ];
    const all = await c.lexicalSearch("t", TENANT_SOURCES, query, 1000, W);
    const docOf = await c.chunkDocuments("t", all.map((h) => h.chunkId));
    for (const json of cases) {
      const hits = await c.lexicalSearch("t", TENANT_SOURCES, query, 1000, W, parseFilter(json));
      const expected = all.filter((h) => holds(json, byId.get(docOf.get(h.chunkId)!)!));
      expectSameTopK(hits, expected, (id) => holds(json, byId.get(docOf.get(id)!)!), JSON.stringify(json));
    }
  }, 60_000);

  it("counts facets over every matched document, inside the filter, as a brute-force count does", async () => {
    const b = await open({ sqliteVectors: "exact" });
    cleanup.push(b);
    const c = b.content;
    const r = rng(kind === "sqlite" ? 41 : 42);
    const docs = await corpus(b, r, 60);
    const byId = new Map(docs.map((d) => [d.id, d]));
    const fields = parseFacets(["metadata.product", "metadata.price", "metadata.flag", "file_type", "data_source_id", "metadata.nested.level", "metadata.tags"]);
    for (let round = 0; round < 25; round++) {
      const words = [r.pick(WORDS), ...(r.next() < 0.5 ? [r.pick(WORDS)] : [])];
      const query = r.next() < 0.15 ? null : analyzeQuery({ terms: words, phrases: [] }, DEFAULT_ANALYZER);
      const json = r.next() < 0.7 ? randomFilter(r, docs) : undefined;
      const named = docs.filter(() => r.next() < 0.1).map((d) => d.id);
      // the reference: documents with a chunk matching a term (the store's own unfiltered match), or named
      const hits = query ? await c.lexicalSearch("t", TENANT_SOURCES, query, 10_000, W) : [];
      const docOf = await c.chunkDocuments("t", hits.map((h) => h.chunkId));
      const matched = new Set([...docOf.values()].filter((id) => !json || holds(json, byId.get(id)!)));
      for (const id of named) matched.add(id); // named ones come from a ranked list that was filtered already
      const expected = Object.fromEntries(
        fields.map((f) => {
          const counts = new Map<string, number>();
          for (const id of matched) {
            const v = fieldValue(byId.get(id)!, f.name);
            if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
          }
          return [f.name, Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)))];
        }),
      );
      const rows = await c.facetCounts("t", TENANT_SOURCES, { query, documentIds: named, ...(json ? { filter: parseFilter(json) } : {}) }, fields.map((f) => f.field), 100);
      const got = facetAnswer(fields, rows);
      expect(got, JSON.stringify({ words, json, named })).toEqual(expected);
    }
  }, 60_000);
});
