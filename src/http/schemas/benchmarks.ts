import { Type } from "@sinclair/typebox";
import { DateTime, FreeObject, Nullable, ref, strictObject } from "./common.js";

export const BenchmarkCaseCreate = strictObject(
  {
    query: Type.String({ minLength: 1, maxLength: 2000 }),
    relevant_document_ids: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 1000 }),
  },
  { $id: "BenchmarkCaseCreate" },
);

export const BenchmarkSuiteCreate = strictObject(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000, default: "" })),
    collection_id: Type.String({ minLength: 1, maxLength: 200 }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
    cases: Type.Array(ref(BenchmarkCaseCreate), { minItems: 1, maxItems: 500 }),
  },
  { $id: "BenchmarkSuiteCreate" },
);

export const BenchmarkCaseOut = Type.Object(
  { id: Type.String(), query: Type.String(), relevant_document_ids: Type.Array(Type.String()), created_at: DateTime },
  { $id: "BenchmarkCaseOut" },
);

export const BenchmarkRunOut = Type.Object(
  {
    id: Type.String(),
    status: Type.String({ description: "running, completed or failed" }),
    query_count: Type.Integer(),
    top_k: Type.Integer(),
    metrics: FreeObject,
    results: Type.Array(FreeObject),
    created_at: DateTime,
    error: Nullable(Type.String()),
    completed_at: Nullable(DateTime),
  },
  { $id: "BenchmarkRunOut" },
);

export const BenchmarkSuiteOut = Type.Object(
  {
    id: Type.String(),
    collection_id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    top_k: Type.Integer(),
    created_at: DateTime,
    cases: Type.Array(Type.Ref("BenchmarkCaseOut")),
    runs: Type.Array(Type.Ref("BenchmarkRunOut")),
    latest_metrics: Type.Optional(Nullable(FreeObject)),
  },
  { $id: "BenchmarkSuiteOut" },
);

const PublishedScore = Type.Object({ ndcg_at_10: Type.Number(), system: Type.String(), source: Type.String() });

export const IndustryBenchmarkOut = Type.Object(
  {
    name: Type.String({ description: "BEIR name, used in the import path" }),
    title: Type.String(),
    description: Type.String(),
    domain: Type.String(),
    licence: Type.String(),
    size: Type.Object({ documents: Nullable(Type.Integer()), queries: Nullable(Type.Integer({ description: "queries of the evaluation split" })) }),
    split: Type.String({ description: "the split published scores use" }),
    graded_relevance: Type.Boolean({ description: "qrels have grades above 1; suite runs score binary relevance" }),
    homepage: Nullable(Type.String()),
    source_url: Nullable(Type.String({ description: "where the BEIR zip is published" })),
    published_ndcg_at_10: Type.Array(PublishedScore),
    published_bm25_ndcg_at_10: Nullable(Type.Number()),
    available_locally: Type.Boolean(),
    local_path: Type.String(),
    download: Type.Object({ automatic: Type.Boolean(), detail: Type.String() }),
    how_to_use: Type.Object({ api: Type.String(), cli: Type.String(), bench: Type.String() }),
  },
  { $id: "IndustryBenchmarkOut" },
);

export const IndustryBenchmarkImport = strictObject(
  {
    collection_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: "load into this collection (a new data source is attached); default: a new collection" }))),
    collection_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 160 }))),
    split: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: "^[A-Za-z0-9_.-]+$", description: "default: the split published scores use" })),
    max_queries: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500, description: "cases of the suite: the split's first queries" })),
    max_documents: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          description: "reduced corpus for quick checks: the relevant documents of the chosen queries plus the first others, up to this many",
        }),
      ),
    ),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  },
  { $id: "IndustryBenchmarkImport" },
);

export const IndustryBenchmarkImportOut = Type.Object(
  {
    dataset: Type.String(),
    split: Type.String(),
    status: Type.String({ description: "indexing: documents are indexed in the background; the data source is ready when done" }),
    collection_id: Type.String(),
    data_source_id: Type.String(),
    suite_id: Nullable(Type.String()),
    documents: Type.Integer(),
    cases: Type.Integer(),
    skipped_queries: Type.Integer(),
  },
  { $id: "IndustryBenchmarkImportOut" },
);
