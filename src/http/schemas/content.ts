import { Type } from "@sinclair/typebox";
import { DateTime, FreeObject, Nullable, ref, strictObject } from "./common.js";
import { Synonyms } from "./search-controls.js";

export const CollectionOut = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    created_at: DateTime,
    document_count: Type.Integer({ default: 0 }),
    indexed_count: Type.Integer({ default: 0 }),
    data_source_count: Type.Integer({ default: 0 }),
    data_source_ids: Type.Optional(Type.Array(Type.String())),
    settings: Type.Optional(FreeObject),
    language: Type.Optional(Type.String({ description: "ISO 639-1 code or 'auto' (see CollectionCreate.language)", default: "en" })),
    reindex: Type.Optional(
      Type.Object(
        { status: Type.String(), documents: Type.Integer() },
        { description: "Present when the change queued the documents of the collection's data sources for indexing again (a new language); search answers from the old index until each is replaced." },
      ),
    ),
  },
  { $id: "CollectionOut" },
);

const FieldWeight = Type.Number({ minimum: 0, maximum: 10 });

const CalibrationWeight = Type.Number({ minimum: 0, maximum: 100 });

/** A collection's own score calibration (calibration.ts FEATURES); tuning fits it from a benchmark suite. */
export const RelevanceCalibration = strictObject(
  {
    mode: Type.String({ enum: ["hybrid", "lexical", "vector"], description: "the answers it scores (others keep the shipped calibration)" }),
    intercept: Type.Number({ minimum: -100, maximum: 100 }),
    weights: strictObject({
      fused: CalibrationWeight,
      lex_ratio: CalibrationWeight,
      lex_log: CalibrationWeight,
      cosine: CalibrationWeight,
      both: CalibrationWeight,
    }),
    retrieve_floor: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "/retrieve's relative cutoff keeps no match below this (default 0.15); tuning sets it above the second hit of every off-topic probe question",
      }),
    ),
  },
  {
    $id: "RelevanceCalibration",
    description:
      "score = 1 / (1 + e^-(intercept + sum of weight x feature)) over each hit's features (fused score, BM25 share of the best, log(1 + BM25), cosine, in both lists), capped down the list; " +
      "weights are >= 0 so relevance never falls as a signal gets stronger. POST /benchmarks/{suite_id}/tune fits one from the suite and sets it with apply: true.",
  },
);

/** settings.model_adaptation: the collection's adapted query model (issue 27 item 4), written by POST /collections/{id}/adapt. */
export const ModelAdaptation = strictObject(
  {
    id: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "the adaptation's file; absent for a refused automatic attempt" })),
    kind: Type.Optional(
      Type.Union([Type.Literal("queries"), Type.Literal("model")], {
        description: "queries (absent means this): the collection's queries only; model: the whole model, its data sources' chunks embedded with it too",
      }),
    ),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          "false: the collection uses the base model again (the revert setting; true turns the adaptation back on; for kind model, its sources' chunks are embedded again each time). Default true.",
      }),
    ),
    applied: Type.Optional(Type.Boolean({ description: "false on the record of an automatic attempt that the guards refused" })),
    base_model: Type.Optional(Type.String({ description: "the model and file version it was trained on; with another active model it is ignored" })),
    created_at: Type.Optional(Type.String()),
    pairs: Type.Optional(Type.Integer({ minimum: 0, description: "heading -> section pairs it was trained and checked on" })),
    tokens: Type.Optional(Type.Integer({ minimum: 0, description: "tokens whose vectors it changes (for kind model, new words included)" })),
    held_out: Type.Optional(strictObject({ base: Type.Number(), adapted: Type.Number() }, { description: "held-out nDCG@10 of the base model and of the adaptation" })),
    documents: Type.Optional(Type.Integer({ minimum: 0, description: "indexed documents when an automatic attempt was refused (retried once they double)" })),
    tried_at: Type.Optional(Type.String()),
    detail: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  {
    $id: "ModelAdaptation",
    description:
      "The collection's adapted model (quarry-static profile only). Its queries are embedded with it while enabled is not false. Kind queries: passages keep the base model's vectors, " +
      "so turning it off (enabled: false) or on takes effect at the next search and nothing is re-embedded. Kind model: the collection's data sources' chunks are embedded with it too, " +
      "so turning it off or on embeds them again (the backfill, about 2,000 chunks a second), and its data sources cannot be in another collection meanwhile (409).",
  },
);

/** Per-collection search tuning (fusion, candidate depth, BM25 field weights); see docs/decisions.md. */
export const CollectionSettings = strictObject(
  {
    fusion: Type.Optional(Type.String({ enum: ["rrf", "weighted"] })),
    lexical_weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    vector_weight: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    normalization: Type.Optional(Type.String({ enum: ["zscore", "minmax"], description: "score normalisation of fusion 'weighted' (default zscore)" })),
    candidate_depth: Type.Optional(Type.Integer({ minimum: 10, maximum: 500, description: "candidates taken from each retriever (default 100)" })),
    field_weights: Type.Optional(
      strictObject(
        { title: Type.Optional(FieldWeight), headings: Type.Optional(FieldWeight), body: Type.Optional(FieldWeight) },
        { description: "BM25 weight of each field (default title 2, headings 1.5, body 1)" },
      ),
    ),
    document_evidence: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          "document evidence: a chunk gains this weight times the scores of up to 10 other candidate chunks of its document, so pages with several good passages rank higher (default 0, off; 0.2 helped documentation sites)",
      }),
    ),
    relevance_calibration: Type.Optional(ref(RelevanceCalibration)),
    synonyms: Type.Optional(ref(Synonyms)),
    typo_tolerance: Type.Optional(
      Type.Boolean({
        description:
          "Typo tolerance in the keyword half (default true): a query word of 5+ characters that the collection's words lack, or that is rare in them, " +
          "also finds words one edit away (two from 9 characters), ranked below exact matches. false turns it off for every search of the collection.",
      }),
    ),
    model_adaptation: Type.Optional(ref(ModelAdaptation)),
    model_adaptation_auto: Type.Optional(
      Type.Boolean({ description: "false: the collection never adapts its query model on its own (it adapts automatically from 200 indexed documents with the quarry-static profile)" }),
    ),
  },
  { $id: "CollectionSettings", description: "Every key is optional; a missing key keeps the deployment default. POST /benchmarks/{suite_id}/tune can find and set them." },
);

const LANGUAGE_DESCRIPTION =
  "The language of the collection's text: an ISO 639-1 code (en, de, fr, es, it, pt, nl, sv, ru, da, fi, no: stemming and stop words; " +
  "zh, ja, th: word segmentation) or 'auto' (each document's language is detected when it is indexed). Default 'en', the English Porter " +
  "analysis. Collections that share a data source must have the same language (409 otherwise). Changing it queues the collection's " +
  "documents for indexing again; a value outside the list answers 422 naming the supported ones.";

export const CollectionCreate = strictObject(
  {
    name: Type.String({ minLength: 1, maxLength: 160 }),
    description: Type.Optional(Type.String({ maxLength: 2000, default: "" })),
    data_source_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000, description: "Data sources whose documents this collection searches." }),
    ),
    settings: Type.Optional(ref(CollectionSettings)),
    language: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: LANGUAGE_DESCRIPTION, examples: ["de", "auto"] })),
  },
  { $id: "CollectionCreate" },
);

export const CollectionUpdate = strictObject(
  {
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 160 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    data_source_ids: Type.Optional(
      Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000 }), {
        description: "When present, replaces the whole set of data sources of the collection.",
      }),
    ),
    settings: Type.Optional(Nullable(ref(CollectionSettings))),
    language: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 16, description: LANGUAGE_DESCRIPTION, examples: ["fr"] }))),
  },
  { $id: "CollectionUpdate", description: "Partial update: only the fields present change." },
);

export const DataSourceOut = Type.Object(
  {
    id: Type.String(),
    collection_ids: Type.Array(Type.String()),
    name: Type.String(),
    source_type: Type.String(),
    status: Type.String({ description: "ready, syncing or error" }),
    configuration: FreeObject,
    last_synced_at: Nullable(DateTime),
    created_at: DateTime,
    document_count: Type.Integer({ default: 0 }),
    indexed_count: Type.Integer({ default: 0 }),
    failed_count: Type.Optional(Type.Integer()),
    chunks_pending_vectors: Type.Optional(
      Type.Integer({ description: "Extension: chunks that are lexically searchable but still wait for their vector (0 when all have one)" }),
    ),
    error: Type.Optional(Nullable(Type.String())),
  },
  { $id: "DataSourceOut" },
);

export const DataSourceCreate = strictObject(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    source_type: Type.String({
      pattern: "^(upload|website|git)$",
      description: "upload (files sent to the service), website (pages fetched by a crawl) or git (files of a git repository, synced with POST /data-sources/{id}/sync).",
    }),
    configuration: Type.Optional(
      Type.Object(
        {
          records: Type.Optional(
            Type.Boolean({
              description:
                "Extension (upload sources; absent means false): each uploaded CSV row, or JSON array element / JSON Lines line, becomes its own document " +
                "named <file>#<n>, with the columns or fields as its metadata (product catalogues). Other files are indexed as usual.",
            }),
          ),
          url: Type.Optional(
            Type.String({
              maxLength: 2048,
              description:
                "git sources (required): the repository's http(s) URL; it passes the crawler's SSRF guard. ssh URLs are refused; a path on the server " +
                "(or file://) only where the deployment allows private networks (CRAWL_ALLOW_PRIVATE_NETWORKS).",
            }),
          ),
          branch: Type.Optional(Nullable(Type.String({ maxLength: 200, description: "git sources: the branch to index; absent or null: the repository's default branch." }))),
          paths: Type.Optional(
            Type.Array(Type.String({ maxLength: 500 }), {
              maxItems: 100,
              description:
                "git sources: folders or files to index (\"docs/\" takes docs/a.md, not docs-old/a.md); absent: the whole repository. " +
                "Markdown, reStructuredText, AsciiDoc, HTML and text files are indexed, each with its path as the outermost heading.",
            }),
          ),
        },
        { additionalProperties: true, description: "Source settings; free-form apart from the fields listed." },
      ),
    ),
    collection_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 1000 })),
  },
  { $id: "DataSourceCreate" },
);

export const DocumentOut = Type.Object(
  {
    id: Type.String(),
    data_source_id: Type.String(),
    title: Type.String(),
    source_type: Type.String(),
    source: Type.String(),
    status: Type.String({ description: "queued, processing, indexed or failed" }),
    error: Nullable(Type.String()),
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    content_type: Type.Optional(Nullable(Type.String())),
    size_bytes: Type.Optional(Nullable(Type.Integer())),
    chunk_count: Type.Optional(Type.Integer()),
    chunks_pending_vectors: Type.Optional(
      Type.Integer({ description: "Extension: chunks that are lexically searchable but still wait for their vector (0 when all have one)" }),
    ),
    metadata: Type.Optional(FreeObject),
  },
  { $id: "DocumentOut" },
);

export const ChunkOut = Type.Object(
  {
    id: Type.String(),
    document_id: Type.String(),
    position: Type.Integer(),
    heading_path: Type.Array(Type.String()),
    text: Type.String(),
    token_count: Type.Integer(),
    metadata: FreeObject,
    embedded: Type.Boolean(),
  },
  { $id: "ChunkOut" },
);

export const ChunkList = Type.Object(
  {
    document_id: Type.String(),
    total: Type.Integer(),
    chunks: Type.Array(Type.Ref("ChunkOut")),
  },
  { $id: "ChunkList" },
);

export const ReindexOut = Type.Object(
  {
    status: Type.String(),
    documents: Type.Integer({ description: "documents queued for re-indexing" }),
    embedding_profile: Type.String(),
  },
  { $id: "ReindexOut" },
);

export const UploadBody = Type.Object(
  {
    data_source_id: Type.String(),
    files: Type.Array(Type.String({ format: "binary" }), { minItems: 1 }),
  },
  { $id: "UploadBody" },
);
