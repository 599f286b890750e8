import { Type } from "@sinclair/typebox";
import { FreeObject, Nullable, ref, strictObject } from "./common.js";
import { RETRIEVE_CUTOFF } from "../../services/search/search.js";
import { FacetCounts, facetsField, searchControls } from "./search-controls.js";

const MinScore = Type.Number({
  minimum: 0,
  maximum: 1,
  default: 0,
  description: "Drop hits whose `score` (relevance, 0 to 1) is below this. 0 keeps every hit.",
});

export const SearchRequest = strictObject(
  {
    collection_id: Type.String({ minLength: 1, maxLength: 200, description: "The collection to search." }),
    query: Type.String({ minLength: 1, maxLength: 2000, description: "Natural-language question or keywords, 1 to 2000 characters." }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: "Number of hits to return." })),
    collapse_documents: Type.Optional(Type.Boolean({ default: true, description: "One hit per document (its best chunk); false returns every matching chunk." })),
    min_score: Type.Optional(MinScore),
    ...searchControls,
    facets: facetsField,
  },
  { $id: "SearchRequest" },
);

export const SearchHit = Type.Object(
  {
    document_id: Type.String(),
    chunk_id: Nullable(Type.String({ description: "The matching chunk." })),
    title: Type.String(),
    snippet: Type.String({ description: "The best window of the chunk around the matched terms, never cut mid-word." }),
    score: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "Relevance from 0 to 1: the calibrated probability that the hit answers the query, from its BM25 and vector signals. " +
        "Non-increasing down the list and comparable across queries of a collection, so one `min_score` threshold works for all of them.",
    }),
    source: Type.String({ description: "File name or URL of the document." }),
    heading_path: Type.Array(Type.String(), { default: [], description: "Headings above the chunk, outermost first." }),
    position: Nullable(Type.Integer({ description: "0-based position of the chunk in the document." })),
    metadata: FreeObject,
    highlights: Type.Array(Type.String(), { default: [], description: "Matched terms and phrases as they appear in the snippet." }),
    explain: Type.Optional(Type.Ref("HitExplanation")),
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
    facets: Type.Optional(ref(FacetCounts)),
    search_id: Type.Optional(Nullable(Type.String({ description: "Id of this search in the search log, for POST /searches/{search_id}/events; null when the workspace turned logging off." }))),
  },
  { $id: "SearchResponse" },
);

export const RetrieveRequest = strictObject(
  {
    collection_id: Type.String({ minLength: 1, maxLength: 200, description: "The collection to retrieve from." }),
    query: Type.String({ minLength: 1, maxLength: 2000, description: "The question to ground, 1 to 2000 characters." }),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 8, description: "Maximum matched chunks returned." })),
    max_chunks_per_document: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 3, description: "At most this many matched chunks per document." })),
    context_window: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 2, default: 0, description: "Adjacent chunks returned before and after each match (marked expanded)." }),
    ),
    max_tokens: Type.Optional(
      Nullable(Type.Integer({ minimum: 100, maximum: 64000 }), { description: "Token budget: contexts are trimmed to it, lowest scores first. Null: no budget." }),
    ),
    format: Type.Optional(Type.String({ pattern: "^(json|text)$", default: "json", description: "text also fills `text` with a ready-to-paste block of numbered sources." })),
    min_score: Type.Optional(MinScore),
    relative_cutoff: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "Stop adding matches that are much weaker than the best one: a match is kept while its score is at least " +
          `${RETRIEVE_CUTOFF.ratio} x the best match's and at least ${RETRIEVE_CUTOFF.floor} (or the collection's settings.relevance_calibration.retrieve_floor); the best match is always kept. ` +
          "A question with no answer in the collection then gets at most one context. false: fill up to top_k as before.",
      }),
    ),
    ...searchControls,
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
    score: Type.Number({ minimum: 0, maximum: 1, description: "Relevance from 0 to 1 (see SearchHit.score); an expanded chunk carries its match's." }),
    expanded: Type.Boolean({ default: false, description: "true for an adjacent chunk added by context_window." }),
    citation: Type.Integer({ description: "Citation number of the document, 1..n in order of first appearance." }),
    explain: Type.Optional(Nullable(Type.Ref("HitExplanation"), { description: "With `explain: true`: why the match ranks where it does; null for a chunk added by context_window." })),
  },
  { $id: "RetrievedContext" },
);

export const RetrievedDocument = Type.Object(
  {
    document_id: Type.String(),
    title: Type.String(),
    source: Type.String(),
    best_score: Type.Number({ minimum: 0, maximum: 1, description: "The best relevance among the document's contexts." }),
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
    token_estimate: Type.Integer({ description: "Estimated tokens of the contexts (or of `text` when format is text)." }),
    text: Nullable(Type.String({ description: "Ready-to-paste context block when format is text; null otherwise." })),
    mode: Type.Optional(Type.String({ description: "hybrid, or lexical when the embedding model is unavailable" })),
    search_id: Type.Optional(Nullable(Type.String({ description: "Id of this search in the search log (see SearchResponse.search_id)." }))),
  },
  { $id: "RetrieveResponse" },
);
