import { Type } from "@sinclair/typebox";
import { DateTime, FreeObject, Nullable, strictObject } from "./common.js";

export const Tenant = Type.Object(
  { id: Type.String(), name: Type.String(), slug: Type.String(), created_at: DateTime },
  { $id: "Tenant" },
);

export const TenantCreate = strictObject(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Nullable(Type.String({ maxLength: 80, pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" }))),
    admin_key_name: Type.Optional(Type.String({ minLength: 1, maxLength: 120, default: "Admin key" })),
  },
  { $id: "TenantCreate" },
);

export const ApiScope = Type.Union([Type.Literal("search"), Type.Literal("ingest"), Type.Literal("admin")]);

const apiKeyFields = {
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  status: Type.String({ default: "active", description: "active, revoked or expired" }),
  created_at: DateTime,
  expires_at: Nullable(DateTime),
  revoked_at: Nullable(DateTime),
  last_used_at: Nullable(DateTime),
};

export const ApiKeyOut = Type.Object(apiKeyFields, { $id: "ApiKeyOut" });
export const ApiKeyCreated = Type.Object(
  { ...apiKeyFields, key: Type.String({ description: "the secret, shown once" }) },
  { $id: "ApiKeyCreated" },
);
export const ApiKeyCreate = strictObject(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    scopes: Type.Array(Type.String({ enum: ["search", "ingest", "admin"] }), { minItems: 1, maxItems: 4 }),
    expires_in_days: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 3650 }))),
  },
  { $id: "ApiKeyCreate" },
);

export const TenantCreated = Type.Object(
  { tenant: Type.Ref("Tenant"), admin_key: Type.Ref("ApiKeyCreated") },
  { $id: "TenantCreated" },
);

export const TenantPlanUpdate = strictObject(
  { plan: Type.String({ enum: ["free", "pro", "enterprise"] }) },
  { $id: "TenantPlanUpdate" },
);

export const UsageOut = Type.Object(
  {
    period: Type.String({ description: "calendar month in UTC, YYYY-MM" }),
    resets_at: DateTime,
    plan: Type.String(),
    sources_used: Type.Integer(),
    documents_used: Type.Integer(),
    queries_used: Type.Integer(),
    sources_limit: Nullable(Type.Integer()),
    documents_limit: Nullable(Type.Integer()),
    queries_limit: Nullable(Type.Integer()),
  },
  { $id: "UsageOut" },
);

export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    email_verified: Type.Boolean(),
    created_at: DateTime,
  },
  { $id: "User" },
);

export const MeOut = Type.Object(
  {
    tenant: Type.Ref("Tenant"),
    scopes: Type.Array(Type.String()),
    key: Nullable(Type.Ref("ApiKeyOut")),
    user: Nullable(Type.Ref("User")),
    role: Nullable(Type.String()),
    plan: Type.String({ default: "free" }),
    auth_method: Type.String({ default: "api_key" }),
    usage: Nullable(Type.Ref("UsageOut")),
  },
  { $id: "MeOut" },
);

export const EmbeddingProfileOut = Type.Object(
  {
    name: Type.String(),
    provider: Type.String(),
    model: Type.String(),
    dimension: Type.Integer(),
    max_input_tokens: Type.Integer(),
    chunk_size_tokens: Type.Integer(),
    chunk_overlap_tokens: Type.Integer(),
    query_prefix: Type.String(),
    passage_prefix: Type.String(),
    modalities: Type.Array(Type.String()),
    description: Type.String(),
    active: Type.Boolean({ default: false }),
    index_name: Nullable(Type.String()),
    status: Type.Optional(Type.String({ description: "loading, ready or unavailable (active profile only)" })),
    status_detail: Type.Optional(Nullable(Type.String())),
  },
  { $id: "EmbeddingProfileOut" },
);

export const HealthOut = Type.Object(
  {
    status: Type.String({ description: "ok when API, database, queue and index are up; otherwise down" }),
    version: Type.String(),
    checks: Type.Record(Type.String(), Type.Object({ status: Type.String(), detail: Nullable(Type.String()) })),
    vectors: Type.Optional(
      Type.Object(
        {
          chunks_pending_vectors: Type.Integer({ description: "chunks lexically searchable but still waiting for a vector (the backfill backlog)" }),
          kind: Type.String({ description: "the vector index: hnsw (usearch) or exact (sqlite-vec)" }),
          partitions: Type.Integer({ description: "HNSW graphs (one per tenant and data source)" }),
          vectors: Type.Integer({ description: "vectors in ready graphs" }),
          building: Type.Integer({ description: "graphs being (re)built; their sources are searched exactly meanwhile" }),
          behind: Type.Integer({ description: "vector changes not yet applied to the graphs" }),
        },
        { description: "Extension: vector backlog and index state" },
      ),
    ),
  },
  { $id: "HealthOut" },
);

export const CapabilitiesOut = Type.Object(
  {
    connectors: Type.Array(Type.String()),
    render_js: Type.Boolean(),
    max_upload_bytes: Type.Integer(),
    page_size_limit_bytes: Type.Integer(),
    max_page_limit: Type.Integer(),
    file_types: Type.Array(Type.String()),
    embedding_profile: Type.String(),
    embedding_model: Type.String({ description: "Extension: the active profile's model id" }),
    embedding_model_version: Type.Union([Type.String(), Type.Null()], { description: "Extension: the model's own version (a model file's date and checksum, a package's version); null when unknown" }),
    ocr: Type.Boolean({ description: "Scanned PDFs are read with OCR (tesseract-ocr and poppler-utils are installed)" }),
  },
  { $id: "CapabilitiesOut" },
);

export const AnyObject = FreeObject;
