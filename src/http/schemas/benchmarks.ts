import { Type } from "@sinclair/typebox";
import { DateTime, FreeObject, Nullable, ref, strictObject } from "./common.js";
import { ModelAdaptation } from "./content.js";

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

export const BenchmarkTuneRequest = strictObject(
  {
    apply: Type.Optional(
      Type.Boolean({
        default: false,
        description: "write the best setting to the suite's collection; done only when it does not lose on the held-out cases (nDCG@10)",
      }),
    ),
    adapt_model: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "also adapt the collection's query model on its own heading -> section pairs (POST /collections/{id}/adapt; quarry-static profile), under the same apply; " +
          "in the request its answer is model_adaptation, in the background it runs as a job after the tuning and its outcome is the collection's settings.model_adaptation",
      }),
    ),
    background: Type.Optional(
      Type.Boolean({
        description:
          "true: always tune as a job (202 with a TuningJobOut and a Location to poll); false: answer in the request (200), refused with 422 for a suite of more than 300 cases; " +
          "left out: in the request for a suite of at most 100 cases, as a job above that",
      }),
    ),
  },
  { $id: "BenchmarkTuneRequest" },
);

const TuneMetrics = Type.Object({
  ndcg_at_10: Type.Number(),
  recall_at_10: Type.Number(),
  mrr_at_10: Type.Number(),
  cases: Type.Integer(),
});

const FieldWeights = Type.Object({ title: Type.Number(), headings: Type.Number(), body: Type.Number() });

const TunedSettings = Type.Object(
  {
    fusion: Type.String(),
    lexical_weight: Type.Number(),
    vector_weight: Type.Number(),
    normalization: Type.String(),
    candidate_depth: Type.Integer(),
    field_weights: FieldWeights,
  },
  { description: "as collection settings (CollectionSettings)" },
);

const TunedSetting = Type.Object({ settings: TunedSettings, tuning: TuneMetrics, held_out: TuneMetrics });

const PairMetrics = Type.Object({ ndcg_at_10: Type.Number(), recall_at_10: Type.Number(), mrr_at_10: Type.Number(), cases: Type.Integer() });

export const AdaptationRequest = strictObject(
  {
    apply: Type.Optional(
      Type.Boolean({
        default: false,
        description: "write the adaptation to the collection (settings.model_adaptation); done only when it improves the held-out pairs and does not lose out of fold",
      }),
    ),
    kind: Type.Optional(
      Type.Union([Type.Literal("queries"), Type.Literal("model")], {
        default: "queries",
        description:
          "queries: the vectors of the headings' words, for queries only (passages keep theirs). model: the whole model, on the collection's headings, inverse-cloze pairs of its sections and replayed general pairs; " +
          "its data sources' chunks are embedded again with it when applied (422 when a data source is also in another collection)",
      }),
    ),
    background: Type.Optional(
      Type.Boolean({
        description:
          "true: adapt as a job (202 with an AdaptationJobOut and a Location to poll); false: answer in the request (200); " +
          "left out: a job for kind model (minutes on a manual-sized collection), in the request for kind queries",
      }),
    ),
  },
  { $id: "AdaptationRequest" },
);

export const AdaptationOut = Type.Object(
  {
    collection_id: Type.String(),
    base_model: Type.String({ description: "the model adapted, with its file's version" }),
    kind: Type.String({ description: "queries or model" }),
    method: Type.String(),
    pairs: Type.Object({ total: Type.Integer(), training: Type.Integer(), held_out: Type.Integer(), held_out_scored: Type.Integer() }),
    tokens: Type.Integer({ description: "tokens whose vectors were trained (for kind model, new words included)" }),
    losses: Type.Array(Type.Number(), { description: "mean training loss of each epoch" }),
    held_out: Type.Object({ base: PairMetrics, adapted: PairMetrics }, { description: "each held-out heading ranked against the text of every section of the collection" }),
    cross_validation: Type.Object({
      folds: Type.Integer(),
      base: PairMetrics,
      adapted: PairMetrics,
      folds_better: Type.Integer(),
      folds_worse: Type.Integer(),
    }),
    apply: Type.Object({
      requested: Type.Boolean(),
      applied: Type.Boolean(),
      allowed: Type.Boolean({ description: "it improves the held-out pairs (nDCG@10, then recall, then MRR) and does not lose out of fold" }),
      detail: Type.String({ description: "what was done, or why not" }),
    }),
    model_adaptation: Nullable(ref(ModelAdaptation), { description: "the record written to the collection's settings when applied" }),
    took_ms: Type.Integer(),
  },
  { $id: "AdaptationOut" },
);

export const AdaptationJobOut = Type.Object(
  {
    id: Type.String(),
    collection_id: Type.String(),
    kind: Type.String({ description: "queries or model" }),
    trigger: Type.String({
      description: "request (POST /collections/{collection_id}/adapt in the background), automatic (the collection reached ADAPT_AUTO_MIN_DOCUMENTS or ADAPT_AUTO_MIN_CHUNKS) or tuning (a tuning's adapt_model)",
    }),
    apply: Type.Boolean({ description: "the adaptation is to be applied when its guards allow it (same rule as the synchronous call); always true for automatic ones" }),
    status: Type.String({
      description: "queued -> running -> applying (its checks passed; the collection is being written) -> completed; failed; cancelled (while queued or running)",
    }),
    progress: Type.Object({
      phase: Type.String({ description: "queued; training (the adaptation scored on the held-out pairs); cross-validation (one training per fold); applying; done" }),
      folds_done: Type.Integer({ description: "trainings of the cross-validation finished" }),
      folds_total: Type.Integer(),
    }),
    result: Nullable(Type.Ref("AdaptationOut"), { description: "once completed: what the synchronous call answers" }),
    error: Nullable(Type.String({ description: "why it failed (for example too few heading -> section pairs, or the collection was deleted)" })),
    created_at: DateTime,
    started_at: Nullable(DateTime),
    finished_at: Nullable(DateTime),
  },
  { $id: "AdaptationJobOut" },
);

export const BenchmarkTuneOut = Type.Object(
  {
    suite_id: Type.String(),
    collection_id: Type.String(),
    mode: Type.String({ description: "hybrid, or lexical when no embedding model is ready (then only field weights and depth are searched)" }),
    k: Type.Integer({ description: "metric cut-off (10)" }),
    objective: Type.String(),
    split: Type.Object({
      method: Type.String(),
      tuning_case_ids: Type.Array(Type.String()),
      held_out_case_ids: Type.Array(Type.String()),
    }),
    search: Type.Object({
      method: Type.String(),
      dimensions: Type.Array(Type.String()),
      settings_evaluated: Type.Integer(),
      passes: Type.Integer(),
      space: Type.Object({
        fusion: Type.Array(
          Type.Object({ fusion: Type.String(), lexical_weight: Type.Number(), vector_weight: Type.Number(), normalization: Nullable(Type.String()) }),
        ),
        field_weights: Type.Array(FieldWeights),
        candidate_depth: Type.Array(Type.Integer()),
      }),
    }),
    current: TunedSetting,
    best: TunedSetting,
    changed: Type.Boolean({ description: "the best setting differs from the current one" }),
    cross_validation: Nullable(
      Type.Object({
        method: Type.String(),
        folds: Type.Integer(),
        current: TuneMetrics,
        tuned: TuneMetrics,
        folds_better: Type.Integer(),
        folds_worse: Type.Integer(),
      }),
      {
        description:
          "the search repeated on all cases but one fold, its choice scored on that fold: whether tuning generalises on this suite (every case scored once out of fold); null when nothing changed",
      },
    ),
    apply: Type.Object({
      requested: Type.Boolean(),
      applied: Type.Boolean(),
      allowed: Type.Boolean({ description: "the best setting differs, does not lose on the held-out cases, and the search's choices do not lose out of fold" }),
      detail: Type.String({ description: "what was done, or why not" }),
    }),
    calibration: Type.Object(
      {
        method: Type.String(),
        mode: Nullable(Type.String({ description: "the answers the calibration scores (hybrid, or lexical without a model); null when the cases' modes differ" })),
        hits: Nullable(
          Type.Object({ tuning: Type.Integer(), tuning_relevant: Type.Integer(), held_out: Type.Integer(), held_out_relevant: Type.Integer() }, { description: "labelled hits on each side of the split" }),
        ),
        off_topic_probes: Nullable(
          Type.Object(
            { asked: Type.Integer(), used: Type.Integer() },
            { description: "everyday questions the collection should not answer, asked to teach and check the fit; those the calibration in effect rates on-topic are not used" },
          ),
        ),
        current: Nullable(
          Type.Object(
            {
              tuning_brier: Type.Number(),
              held_out_brier: Type.Number(),
              held_out_contexts_kept: Type.Number({ description: "mean hits /retrieve's relative cutoff keeps for a held-out case" }),
              held_out_relevant_kept: Type.Number({ description: "how many of them are relevant, on average" }),
              off_topic_most_kept: Type.Integer({ description: "the most hits it keeps for a probe" }),
            },
            { description: "the calibration in effect (the collection's own, else the shipped one)" },
          ),
        ),
        fitted: Nullable(
          Type.Object({
            relevance_calibration: Type.Ref("RelevanceCalibration"),
            tuning_brier: Type.Number(),
            held_out_brier: Type.Number(),
            held_out_contexts_kept: Type.Number(),
            held_out_relevant_kept: Type.Number(),
            off_topic_most_kept: Type.Integer(),
          }),
          { description: "null when there are too few relevant (or irrelevant) hits to fit" },
        ),
        apply: Type.Object({
          requested: Type.Boolean(),
          applied: Type.Boolean({
            description:
              "written to settings.relevance_calibration: asked for (apply: true) and a lower held-out Brier score than the calibration in effect",
          }),
          detail: Type.String({ description: "what was done, or why not" }),
        }),
      },
      { description: "the collection's own score calibration, fitted from the suite (scores stay in [0, 1]; the ranking does not change)" },
    ),
    model_adaptation: Type.Optional(
      Type.Union([ref(AdaptationOut), Type.Object({ error: Type.String() })], { description: "with adapt_model: true, the adaptation's answer, or why it could not run" }),
    ),
    took_ms: Type.Integer(),
  },
  { $id: "BenchmarkTuneOut" },
);

export const TuningJobOut = Type.Object(
  {
    id: Type.String(),
    suite_id: Type.String(),
    collection_id: Type.String(),
    status: Type.String({ description: "queued -> running -> completed | failed | cancelled" }),
    apply: Type.Boolean({ description: "the request asked for the best setting to be applied (same rule as the synchronous call)" }),
    progress: Type.Object({
      phase: Type.String({ description: "queued; candidates (each case's query is searched, the slow part); search (settings ranked in memory); done" }),
      cases_done: Type.Integer({ description: "cases whose candidate lists are fetched; updated about once a second" }),
      cases_total: Type.Integer(),
    }),
    result: Nullable(Type.Ref("BenchmarkTuneOut"), { description: "once completed: what the synchronous call answers" }),
    error: Nullable(Type.String()),
    created_at: DateTime,
    started_at: Nullable(DateTime),
    finished_at: Nullable(DateTime),
  },
  { $id: "TuningJobOut" },
);
