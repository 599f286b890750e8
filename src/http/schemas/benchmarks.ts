import { Type } from "@sinclair/typebox";
import { DateTime, FreeObject, Nullable, strictObject } from "./common.js";

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
    cases: Type.Array(Type.Ref("BenchmarkCaseCreate"), { minItems: 1, maxItems: 500 }),
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
