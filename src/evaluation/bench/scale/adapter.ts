// Everything the scale bench needs from Quarry itself, in one place so that changes to the store
// and engine (chunk ids, query parsing, vector index) need edits here only. Public interfaces only:
// the tenant/source/collection/key services, ContentStore's bulk paths (upsertDocuments +
// replaceDocumentsIndex with precomputed vectors), the engine and search service, and buildApp.
import type { FastifyInstance } from "fastify";
import type { Runtime } from "../../../runtime.js";
import type { Principal } from "../../../services/auth/auth.js";
import type { Embedder, EmbeddingProfile } from "../../../embed/types.js";
import type { SearchRequest } from "../../../services/search/search.js";
import type { RetrievalMode } from "../../../search/engine.js";
import { createEngine } from "../../../search/engine.js";
import { createSearchService } from "../../../services/search/search.js";
import { buildApp } from "../../../http/app.js";
import { needs } from "../../../http/route-config.js";
import { errors, ref } from "../../../http/schemas/common.js";
import { SearchRequest as SearchRequestSchema, SearchResponse } from "../../../http/schemas/search.js";
import { newId } from "../../../store/ids.js";
import { operatorPrincipal } from "../load.js";

export type Mode = RetrievalMode;

/** One bench tenant: a large source, a small one (every 10th document) and two collections. */
export interface BenchTenant {
  id: string;
  principal: Principal;
  mainSourceId: string;
  sideSourceId: string;
  /** both sources: the collection queries run against */
  allCollectionId: string;
  /** the small source alone: a filtered search (recall of a collection filter) */
  sideCollectionId: string;
  /** search-scope API key for HTTP */
  key: string;
}

export interface NewDocument {
  source: string;
  title: string;
  chunks: string[];
  vectors: Float32Array[] | null;
  /** the document's metadata (the filter bench's fields), else none */
  metadata?: Record<string, unknown>;
}

export async function createBenchTenant(rt: Runtime, name: string): Promise<BenchTenant> {
  const created = await rt.tenants.create({ name });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const principal = operatorPrincipal((await rt.store.tenants.get(created.tenant.id))!);
  const main = await rt.sources.create(principal, { name: "main", source_type: "upload" });
  const side = await rt.sources.create(principal, { name: "side", source_type: "upload" });
  const all = await rt.collections.create(principal, { name: "all", data_source_ids: [main.id, side.id] });
  const small = await rt.collections.create(principal, { name: "side", data_source_ids: [side.id] });
  const key = (await rt.apiKeys.create(principal, { name: "scale bench", scopes: ["search"] })).key;
  return { id: created.tenant.id, principal, mainSourceId: main.id, sideSourceId: side.id, allCollectionId: all.id, sideCollectionId: small.id, key };
}

/** ~1.33 cl100k tokens per English word: only the stored token_count needs it */
const tokensOf = (text: string) => Math.round(text.split(" ").length * 1.33);

/** Writes documents (all of one source) through the store's bulk path; returns their ids in order. */
export async function writeDocuments(rt: Runtime, tenantId: string, sourceId: string, docs: NewDocument[]): Promise<string[]> {
  const content = rt.store.content;
  const rows = await content.upsertDocuments(
    tenantId,
    sourceId,
    docs.map((d) => ({
      id: newId("doc"),
      source: d.source,
      title: d.title,
      source_type: "upload",
      kind: "text",
      content_type: "text/plain",
      size_bytes: d.chunks.reduce((n, c) => n + c.length, 0),
      content_hash: "",
      metadata: d.metadata ?? {},
    })),
    null,
  );
  const indexName = rt.activeProfile.index_name!;
  // one transaction for the batch (what ingest does): one round of statements and lexical
  // triggers per batch instead of per document
  await content.replaceDocumentsIndex(
    tenantId,
    rows.map((row, i) => {
      const d = docs[i];
      const chunks = d.chunks.map((text, position) => ({ position, text, heading_path: [], token_count: tokensOf(text), metadata: {} }));
      return { documentId: row.id, doc: { title: d.title, metadata: d.metadata ?? {} }, chunks, vectors: d.vectors ? { indexName, values: d.vectors } : null };
    }),
  );
  return rows.map((r) => r.id);
}

/** An embedder that answers queries with the vectors the bench made for them (synthetic vectors). */
export function lookupEmbedder(profile: EmbeddingProfile, vectors: Map<string, Float32Array>, fallback: (text: string) => Float32Array): Embedder {
  return {
    profile,
    status: () => ({ state: "ready", detail: null }),
    whenReady: async () => true,
    embedQuery: async (text) => vectors.get(text) ?? fallback(text),
    embedPassages: async (texts) => texts.map(fallback),
    close: async () => {},
  };
}

/** The runtime as the bench serves it: its engine and search service use `embedder` for queries. */
export function benchRuntime(rt: Runtime, embedder: Embedder | null): Runtime {
  if (!embedder) return rt;
  const engine = createEngine({ content: rt.store.content, profile: rt.activeProfile, embedder });
  return { ...rt, engine, search: createSearchService({ store: rt.store, engine, quotas: rt.quotas }) };
}

export interface Answer {
  /** what the engine answered as (hybrid, lexical, vector) */
  mode: string;
  /** "<document id>#<position>" of each hit: stable whatever the chunk id type */
  keys: string[];
}

/** In process: the search service (what POST /search runs), without quota counting. */
export async function searchInProcess(
  rt: Runtime,
  t: BenchTenant,
  collectionId: string,
  query: string,
  mode: Mode,
  topK = 10,
  more: Pick<SearchRequest, "filter" | "facets"> = {},
): Promise<Answer> {
  const req: SearchRequest = { collection_id: collectionId, query, top_k: topK, collapse_documents: false, ...more };
  const res = await rt.search.search(t.principal, req, { mode, countQuery: false });
  return { mode: res.mode, keys: res.results.map((r) => `${r.document_id}#${r.position}`) };
}

/** The tenant as saved in the job file (JSON has no principal): its principal again. */
export async function reopenTenant(rt: Runtime, saved: Omit<BenchTenant, "principal">): Promise<BenchTenant> {
  const row = await rt.store.tenants.get(saved.id);
  if (!row) throw new Error(`scale bench: tenant ${saved.id} is missing from the data directory`);
  return { ...saved, principal: operatorPrincipal(row) };
}

/** The app on a loopback port, plus bench-only routes for the lexical and vector modes (the API has no mode field). */
export async function startServer(rt: Runtime): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildApp(rt);
  for (const mode of ["lexical", "vector"] as const) {
    app.post(
      `/bench/${mode}-search`,
      { config: needs("search"), schema: { hide: true, body: ref(SearchRequestSchema), response: { 200: ref(SearchResponse), ...errors(401, 403, 404, 422, 429) } } },
      async (req) => rt.search.search(req.principal!, req.body as SearchRequest, { mode }),
    );
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  return { app, url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}` };
}

export async function searchOverHttp(url: string, t: BenchTenant, query: string, mode: Mode): Promise<number> {
  const route = mode === "hybrid" ? "/search" : `/bench/${mode}-search`;
  const res = await fetch(`${url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
    body: JSON.stringify({ collection_id: t.allCollectionId, query, top_k: 10 }),
  });
  await res.arrayBuffer();
  return res.status;
}
