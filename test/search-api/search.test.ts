// POST /search and POST /retrieve over HTTP (inject) with the real embedding model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import type { Principal } from "../../src/services/auth/auth.js";

const PASSWORD = `# Resetting your password

If you forgot your login secret, open Settings, then Security, and choose "Send reset link".
The link stays valid for one hour. After you set a new secret every other device is signed out.
`;

const ERRORS = `# Error codes

## Network

ERR_CONN_RESET: the peer closed the connection while the request was in flight. Retry with backoff.

## Storage

E_DISK_FULL: the volume has no free space left. Remove old snapshots.
`;

const CATS = `# Feline nutrition

Cats are obligate carnivores. Their food must contain taurine and animal protein; a diet of
vegetables alone makes them ill. Young cats need more calories per kilogram than adults.
`;

const PASTA = `# Cooking pasta

Boil a large pot of water, add salt, and stir the spaghetti so it does not stick. Drain it
one minute before the time on the packet and finish it in the sauce.
`;

/** A long document with numbered sections so retrieve has neighbours on both sides. */
function manual(): string {
  const parts = ["# Turbine manual"];
  for (let i = 1; i <= 8; i++) {
    parts.push(`## Section ${i}`);
    const topic = i === 4 ? "The gearbox lubrication interval is 2000 operating hours." : `Routine inspection step ${i} covers the housing.`;
    parts.push(`${topic} ${"Check bolts, seals and cables carefully before restarting the unit. ".repeat(22)}`);
  }
  return parts.join("\n\n");
}

describe("search and retrieve", () => {
  let s: TestServer;
  let key: string;
  let searchKey: string;
  let srcA: string;
  let srcB: string;
  let colA: string;
  let colB: string;
  let colAll: string;
  const docIds: Record<string, string> = {};

  beforeAll(async () => {
    // the out-of-the-box model (new deployments' use-lite-int8): its paraphrase matches are what this suite proves
    s = await startServer({ EMBEDDING_PROFILE: "use-lite-int8" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    key = (await s.tenant()).adminKey;
    srcA = await createSource(s, key, "Support");
    srcB = await createSource(s, key, "Lifestyle");
    colA = await createCollection(s, key, [srcA], "Support only");
    colB = await createCollection(s, key, [srcB], "Lifestyle only");
    colAll = await createCollection(s, key, [srcA, srcB], "Everything");
    const a = await upload(s, key, srcA, [
      { name: "password.md", content: PASSWORD },
      { name: "errors.md", content: ERRORS },
      { name: "manual.md", content: manual() },
    ]);
    expect(a.status).toBe(202);
    const b = await upload(s, key, srcB, [
      { name: "cats.md", content: CATS },
      { name: "pasta.md", content: PASTA },
    ]);
    expect(b.status).toBe(202);
    for (const d of [...(await waitIndexed(s, key, srcA)), ...(await waitIndexed(s, key, srcB))]) {
      expect(d.status).toBe("indexed");
      docIds[d.source] = d.id;
    }
    const k = await s.call("POST", "/api-keys", { key, json: { name: "reader", scopes: ["search"] } });
    searchKey = k.body.key;
  });
  afterAll(async () => s?.close());

  const search = (body: Record<string, unknown>, k = key) => s.call("POST", "/search", { key: k, json: body });
  const retrieve = (body: Record<string, unknown>, k = key) => s.call("POST", "/retrieve", { key: k, json: body });

  it("finds documents only through the collection's own sources", async () => {
    const inA = await search({ collection_id: colA, query: "taurine cats carnivores diet" });
    expect(inA.status).toBe(200);
    expect(inA.body.results.map((r: any) => r.document_id)).not.toContain(docIds["cats.md"]);
    const inB = await search({ collection_id: colB, query: "taurine cats carnivores diet" });
    expect(inB.body.results[0].document_id).toBe(docIds["cats.md"]);
    const sources = new Set(inB.body.results.map((r: any) => r.document_id));
    for (const id of [docIds["password.md"], docIds["errors.md"], docIds["manual.md"]]) expect(sources.has(id)).toBe(false);
  });

  it("finds a paraphrase with no shared words through vectors", async () => {
    // none of these words occur in the cat document (stop words aside)
    const q = "what should my kitten eat";
    const lexical = await s.rt.search.search(
      await principal(),
      { collection_id: colAll, query: q },
      { mode: "lexical", countQuery: false },
    );
    expect(lexical.results.map((r) => r.document_id)).not.toContain(docIds["cats.md"]);
    const r = await search({ collection_id: colAll, query: q });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe("hybrid");
    expect(r.body.results[0].document_id).toBe(docIds["cats.md"]);
  });

  it("finds an exact identifier through BM25 and highlights it", async () => {
    const r = await search({ collection_id: colAll, query: "ERR_CONN_RESET" });
    expect(r.body.results[0].document_id).toBe(docIds["errors.md"]);
    expect(r.body.results[0].heading_path).toEqual(["Network"]);
    expect(r.body.results[0].snippet).toContain("ERR_CONN_RESET");
    expect(r.body.results[0].highlights.join(" ")).toContain("ERR_CONN_RESET");
    expect(r.body.results[0].chunk_id).toMatch(/^chk_\d+$/);
    expect(typeof r.body.took_ms).toBe("number");
  });

  it("collapses to one hit per document by default and returns chunks when asked", async () => {
    const q = "inspection step housing bolts seals";
    const collapsed = await search({ collection_id: colA, query: q, top_k: 10 });
    const ids = collapsed.body.results.map((r: any) => r.document_id);
    expect(new Set(ids).size).toBe(ids.length);
    const chunks = await search({ collection_id: colA, query: q, top_k: 10, collapse_documents: false });
    const manualHits = chunks.body.results.filter((r: any) => r.document_id === docIds["manual.md"]);
    expect(manualHits.length).toBeGreaterThan(1);
    expect(new Set(manualHits.map((r: any) => r.chunk_id)).size).toBe(manualHits.length);
    expect(chunks.body.total).toBeGreaterThanOrEqual(chunks.body.results.length);
    const top1 = await search({ collection_id: colA, query: q, top_k: 1, collapse_documents: false });
    expect(top1.body.results).toHaveLength(1);
  });

  it("survives operators, quotes and punctuation typed by users", async () => {
    for (const q of ['"unbalanced', "AND OR NOT", "NEAR(a b)", "*", "-", "col:umn ^boost", "((((", "🙂", "'; DROP TABLE chunks; --", "a".repeat(2000)]) {
      const r = await search({ collection_id: colAll, query: q });
      expect(r.status, q).toBe(200);
      expect(Array.isArray(r.body.results)).toBe(true);
    }
  });

  it("retrieves with citations, context windows at document edges and a text block", async () => {
    const r = await retrieve({ collection_id: colA, query: "gearbox lubrication interval operating hours", top_k: 1, context_window: 2 });
    expect(r.status).toBe(200);
    const matched = r.body.contexts.filter((c: any) => !c.expanded);
    expect(matched).toHaveLength(1);
    const m = matched[0];
    expect(m.document_id).toBe(docIds["manual.md"]);
    expect(m.text).toContain("gearbox lubrication");
    const positions = r.body.contexts.map((c: any) => c.position).sort((a: number, b: number) => a - b);
    // neighbours w=2 on both sides, clipped at the document's edges
    const total = (await s.call("GET", `/documents/${m.document_id}/chunks?limit=100`, { key })).body.total;
    const expected = [];
    for (let p = Math.max(0, m.position - 2); p <= Math.min(total - 1, m.position + 2); p++) expected.push(p);
    expect(positions).toEqual(expected);
    expect(r.body.contexts.filter((c: any) => c.expanded).length).toBe(expected.length - 1);
    expect(new Set(r.body.contexts.map((c: any) => c.citation))).toEqual(new Set([1]));
    expect(r.body.documents).toEqual([
      expect.objectContaining({ document_id: docIds["manual.md"], chunks: expected.length, title: "Turbine manual" }),
    ]);
    expect(r.body.text).toBeNull();

    // the first chunk has no neighbours before it
    const edge = await retrieve({ collection_id: colA, query: "Routine inspection step 1 covers the housing", top_k: 1, context_window: 1 });
    const first = edge.body.contexts.find((c: any) => !c.expanded);
    expect(edge.body.contexts.every((c: any) => c.position >= 0)).toBe(true);
    expect(edge.body.contexts.some((c: any) => c.position === first.position - 1)).toBe(first.position > 0);
  });

  it("numbers citations per document in order of first appearance and trims to max_tokens", async () => {
    const r = await retrieve({ collection_id: colAll, query: "reset password link connection reset", top_k: 6, max_chunks_per_document: 1 });
    const seen: string[] = [];
    for (const c of r.body.contexts) {
      if (!seen.includes(c.document_id)) seen.push(c.document_id);
      expect(c.citation).toBe(seen.indexOf(c.document_id) + 1);
    }
    const perDoc = new Map<string, number>();
    for (const c of r.body.contexts) perDoc.set(c.document_id, (perDoc.get(c.document_id) ?? 0) + 1);
    expect(Math.max(...perDoc.values())).toBe(1);

    const tight = await retrieve({ collection_id: colA, query: "inspection housing bolts", top_k: 8, context_window: 1, max_tokens: 100 });
    expect(tight.status).toBe(200);
    expect(tight.body.token_estimate).toBeLessThanOrEqual(100);
    expect(tight.body.contexts.length).toBeGreaterThan(0);

    const text = await retrieve({ collection_id: colAll, query: "forgot login secret", format: "text", top_k: 2 });
    expect(text.body.text).toMatch(/^\[1\] Resetting your password — password\.md/);
    expect(text.body.token_estimate).toBeGreaterThan(0);
  });

  const OFF_TOPIC = ["quantum chromodynamics lattice gauge theory", "who won the football world cup final"];
  const ON_TOPIC = "how often is the gearbox lubricated";

  it("scores hits as relevances in [0, 1], non-increasing, higher for an answer than for an off-topic query", async () => {
    const lists: number[][] = [];
    for (const q of [ON_TOPIC, "ERR_CONN_RESET", "what should my kitten eat", ...OFF_TOPIC]) {
      for (const collapse of [true, false]) {
        const r = await search({ collection_id: colAll, query: q, top_k: 50, collapse_documents: collapse });
        expect(r.status).toBe(200);
        const scores: number[] = r.body.results.map((h: any) => h.score);
        expect(scores.length, q).toBeGreaterThan(0);
        for (const x of scores) expect(x >= 0 && x <= 1, `${q}: ${x}`).toBe(true);
        for (let i = 1; i < scores.length; i++) expect(scores[i], `${q} #${i}`).toBeLessThanOrEqual(scores[i - 1]);
        lists.push(scores);
      }
      const rr = await retrieve({ collection_id: colAll, query: q, relative_cutoff: false, top_k: 50, max_chunks_per_document: 20 });
      for (const c of rr.body.contexts) expect(c.score >= 0 && c.score <= 1).toBe(true);
      for (const d of rr.body.documents) expect(d.best_score >= 0 && d.best_score <= 1).toBe(true);
    }
    // comparable across queries: the answer to a real question outscores the best hit of questions with no answer
    const answer = (await search({ collection_id: colAll, query: ON_TOPIC })).body.results[0];
    expect(answer.document_id).toBe(docIds["manual.md"]);
    for (const q of OFF_TOPIC) {
      const best = (await search({ collection_id: colAll, query: q })).body.results[0];
      expect(answer.score, q).toBeGreaterThan(best.score);
    }
  });

  it("drops hits below min_score", async () => {
    const q = "reset password link connection reset";
    const all = await search({ collection_id: colAll, query: q, top_k: 50, collapse_documents: false });
    const scores: number[] = all.body.results.map((h: any) => h.score);
    expect(scores.length).toBeGreaterThan(2);
    const threshold = scores[1]; // keeps the first two (and any tie)
    const some = await search({ collection_id: colAll, query: q, top_k: 50, collapse_documents: false, min_score: threshold });
    expect(some.status).toBe(200);
    expect(some.body.results.length).toBe(scores.filter((x) => x >= threshold).length);
    expect(some.body.results.length).toBeLessThan(scores.length);
    expect(some.body.results.every((h: any) => h.score >= threshold)).toBe(true);
    expect(some.body.total).toBe(some.body.results.length);
    const none = await search({ collection_id: colAll, query: q, min_score: Math.min(1, scores[0] + 1e-6) });
    expect(none.body.results.length).toBe(scores[0] + 1e-6 > 1 ? 1 : 0);

    const r = await retrieve({ collection_id: colAll, query: q, top_k: 50, max_chunks_per_document: 20, relative_cutoff: false, min_score: threshold });
    expect(r.status).toBe(200);
    expect(r.body.contexts.length).toBe(scores.filter((x) => x >= threshold).length);
    expect(r.body.contexts.every((c: any) => c.score >= threshold)).toBe(true);
    const empty = await retrieve({ collection_id: colAll, query: q, min_score: 1 });
    expect(empty.body.contexts).toEqual([]);
  });

  it("answers 422 with what to change for a bad min_score or relative_cutoff", async () => {
    const bad: [string, Record<string, unknown>, string, RegExp][] = [
      ["/search", { min_score: -0.1 }, "min_score", /greater than or equal to 0/],
      ["/search", { min_score: 1.5 }, "min_score", /less than or equal to 1/],
      ["/search", { min_score: "0.5" }, "min_score", /valid number/],
      ["/search", { min_score: null }, "min_score", /valid number/],
      ["/retrieve", { min_score: 2 }, "min_score", /less than or equal to 1/],
      ["/retrieve", { min_score: -1 }, "min_score", /greater than or equal to 0/],
      ["/retrieve", { min_score: true }, "min_score", /valid number/],
      ["/retrieve", { relative_cutoff: "no" }, "relative_cutoff", /valid boolean/],
    ];
    for (const [path, extra, field, msg] of bad) {
      const r = await s.call("POST", path, { key, json: { collection_id: colAll, query: "x", ...extra } });
      expect(r.status, `${path} ${JSON.stringify(extra)}`).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
      expect(r.body.detail[0].msg).toMatch(msg);
    }
    for (const v of [0, 1, 0.25]) expect((await search({ collection_id: colAll, query: "x", min_score: v })).status).toBe(200);
  });

  it("cuts retrieve at much weaker matches: an off-topic question gets at most one context, an answer is kept", async () => {
    // the old fill: every chunk of the collection is a vector candidate, so top_k of them come back
    const chunks = (await search({ collection_id: colAll, query: OFF_TOPIC[0], top_k: 50, collapse_documents: false })).body.total;
    const fill = Math.min(8, chunks);
    expect(fill).toBeGreaterThan(1);
    const wide = { top_k: 8, max_chunks_per_document: 20 };
    for (const q of OFF_TOPIC) {
      const r = await retrieve({ collection_id: colAll, query: q, ...wide });
      expect(r.status).toBe(200);
      expect(r.body.contexts.length, q).toBeLessThanOrEqual(1);
      const full = await retrieve({ collection_id: colAll, query: q, ...wide, relative_cutoff: false });
      expect(full.body.contexts.length, q).toBe(fill);
    }
    const r = await retrieve({ collection_id: colAll, query: ON_TOPIC, ...wide });
    const answer = r.body.contexts.find((c: any) => c.text.includes("gearbox lubrication"));
    expect(answer?.document_id).toBe(docIds["manual.md"]);
    const full = await retrieve({ collection_id: colAll, query: ON_TOPIC, ...wide, relative_cutoff: false });
    expect(full.body.contexts.length).toBe(fill);
    expect(r.body.contexts.length).toBeLessThan(full.body.contexts.length);
    // what the cutoff keeps is part of the full fill, and the best of it
    const fullIds = full.body.contexts.map((c: any) => c.id);
    expect(fullIds).toEqual(expect.arrayContaining(r.body.contexts.map((c: any) => c.id)));
    const minKept = Math.min(...r.body.contexts.map((c: any) => c.score));
    const dropped = full.body.contexts.filter((c: any) => !r.body.contexts.some((k: any) => k.id === c.id));
    for (const c of dropped) expect(c.score).toBeLessThanOrEqual(minKept);
  });

  it("needs only the search scope, and a search key cannot change anything", async () => {
    expect((await search({ collection_id: colAll, query: "pasta" }, searchKey)).status).toBe(200);
    expect((await retrieve({ collection_id: colAll, query: "pasta" }, searchKey)).status).toBe(200);
    const denied = await s.call("POST", "/collections", { key: searchKey, json: { name: "x" } });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toContain("ingest");
    expect((await s.call("DELETE", `/documents/${docIds["pasta.md"]}`, { key: searchKey })).status).toBe(403);
  });

  it("counts searches and retrieves toward the monthly query quota", async () => {
    const before = (await s.call("GET", "/me", { key })).body.usage.queries_used;
    await search({ collection_id: colAll, query: "pasta" });
    await retrieve({ collection_id: colAll, query: "pasta" });
    const after = (await s.call("GET", "/me", { key })).body.usage.queries_used;
    expect(after - before).toBe(2);
  });

  it("answers 404 for another tenant's collection, like a missing one", async () => {
    const other = await s.tenant();
    const r = await search({ collection_id: colAll, query: "pasta" }, other.adminKey);
    const missing = await search({ collection_id: "col_doesnotexist", query: "pasta" }, other.adminKey);
    expect(r.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(r.body.detail.replace(colAll, "X")).toBe(missing.body.detail.replace("col_doesnotexist", "X"));
  });

  it("answers 422 naming the field for every out-of-range value", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["/search", { collection_id: colAll, query: "" }, "query"],
      ["/search", { collection_id: colAll, query: "x".repeat(2001) }, "query"],
      ["/search", { collection_id: colAll, query: "x", top_k: 0 }, "top_k"],
      ["/search", { collection_id: colAll, query: "x", top_k: 51 }, "top_k"],
      ["/search", { collection_id: colAll, query: "x", top_k: 2.5 }, "top_k"],
      ["/search", { collection_id: colAll, query: "x", collapse_documents: "yes" }, "collapse_documents"],
      ["/search", { query: "x" }, "collection_id"],
      ["/retrieve", { collection_id: colAll, query: "x", top_k: 51 }, "top_k"],
      ["/retrieve", { collection_id: colAll, query: "x", max_chunks_per_document: 0 }, "max_chunks_per_document"],
      ["/retrieve", { collection_id: colAll, query: "x", max_chunks_per_document: 21 }, "max_chunks_per_document"],
      ["/retrieve", { collection_id: colAll, query: "x", context_window: 3 }, "context_window"],
      ["/retrieve", { collection_id: colAll, query: "x", context_window: -1 }, "context_window"],
      ["/retrieve", { collection_id: colAll, query: "x", max_tokens: 99 }, "max_tokens"],
      ["/retrieve", { collection_id: colAll, query: "x", max_tokens: 64001 }, "max_tokens"],
      ["/retrieve", { collection_id: colAll, query: "x", format: "xml" }, "format"],
      ["/retrieve", { collection_id: colAll, query: "" }, "query"],
      ["/search", { collection_id: colAll, query: "x", min_score: 1.01 }, "min_score"],
      ["/retrieve", { collection_id: colAll, query: "x", min_score: -0.5 }, "min_score"],
    ];
    for (const [path, body, field] of cases) {
      const r = await s.call("POST", path, { key, json: body });
      expect(r.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
    }
    const ok = await retrieve({ collection_id: colAll, query: "x", max_tokens: null });
    expect(ok.status).toBe(200);
  });

  /** the caller as the service layer sees it, to rank in a single mode */
  async function principal(): Promise<Principal> {
    const me = await s.call("GET", "/me", { key });
    const tenant = (await s.rt.store.tenants.get(me.body.tenant.id))!;
    return { tenant, scopes: ["search"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
  }
});
