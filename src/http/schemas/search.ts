import { Type } from "@sinclair/typebox";
import { FreeObject, Nullable, strictObject } from "./common.js";

export const SearchRequest = strictObject(
  {
    collection_id: Type.String({ minLength: 1, maxLength: 200 }),
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
    collapse_documents: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: "SearchRequest" },
);

export const SearchHit = Type.Object(
  {
    document_id: Type.String(),
    chunk_id: Nullable(Type.String()),
    title: Type.String(),
    snippet: Type.String(),
    score: Type.Number(),
    source: Type.String(),
    heading_path: Type.Array(Type.String(), { default: [] }),
    position: Nullable(Type.Integer()),
    metadata: FreeObject,
    highlights: Type.Array(Type.String(), { default: [] }),
  },
  { $id: "SearchHit" },
);

export const SearchResponse = Type.Object(
  {
    query: Type.String(),
    took_ms: Type.Integer(),
    total: Type.Integer(),
    results: Type.Array(Type.Ref("SearchHit")),
    mode: Type.Optional(Type.String({ description: "hybrid, or lexical when the embedding model is unavailable" })),
  },
  { $id: "SearchResponse" },
);

export const RetrieveRequest = strictObject(
  {
    collection_id: Type.String({ minLength: 1, maxLength: 200 }),
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 8 })),
    max_chunks_per_document: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 3 })),
    context_window: Type.Optional(Type.Integer({ minimum: 0, maximum: 2, default: 0 })),
    max_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 100, maximum: 64000 }))),
    format: Type.Optional(Type.String({ pattern: "^(json|text)$", default: "json" })),
  },
  { $id: "RetrieveRequest" },
);

export const RetrievedContext = Type.Object(
  {
    id: Type.String(),
    document_id: Type.String(),
    title: Type.String(),
    source: Type.String(),
    position: Type.Integer(),
    heading_path: Type.Array(Type.String(), { default: [] }),
    text: Type.String(),
    score: Type.Number(),
    expanded: Type.Boolean({ default: false }),
    citation: Type.Integer(),
  },
  { $id: "RetrievedContext" },
);

export const RetrievedDocument = Type.Object(
  {
    document_id: Type.String(),
    title: Type.String(),
    source: Type.String(),
    best_score: Type.Number(),
    chunks: Type.Integer(),
  },
  { $id: "RetrievedDocument" },
);

export const RetrieveResponse = Type.Object(
  {
    query: Type.String(),
    took_ms: Type.Integer(),
    contexts: Type.Array(Type.Ref("RetrievedContext")),
    documents: Type.Array(Type.Ref("RetrievedDocument")),
    token_estimate: Type.Integer(),
    text: Nullable(Type.String()),
  },
  { $id: "RetrieveResponse" },
);
