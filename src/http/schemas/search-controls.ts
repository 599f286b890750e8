// The search controls /search and /retrieve share (issue 28): the blend of one request, the
// explanation of each hit, and the filter. Kept apart from search.ts, which holds the bodies.
import { Type } from "@sinclair/typebox";
import { Nullable, ref, strictObject } from "./common.js";

export const HybridBlend = strictObject(
  {
    semantic_ratio: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "Share of the vector signal in the ranking, 0 to 1: 0 ranks by keywords (BM25) alone, exactly as lexical mode; 1 by the embedding alone; " +
        "between, the two normalised lists are mixed with weights 1 - ratio and ratio in place of the collection's. Without a ready model every ratio answers lexically (mode `lexical`).",
    }),
  },
  { $id: "HybridBlend", description: "The blend of keyword and vector ranking for this request; absent: the collection's settings." },
);

const LegScore = (what: string) =>
  Nullable(
    Type.Object({
      rank: Type.Integer({ minimum: 1, description: `1-based place in the ${what} candidate list (of the filtered set when a filter is given).` }),
      score: Type.Number({ description: what === "lexical" ? "BM25 score, higher is better." : "Cosine similarity to the query." }),
    }),
    { description: `null when the chunk is not among the ${what} candidates.` },
  );

export const HitExplanation = Type.Object(
  {
    lexical: LegScore("lexical"),
    vector: LegScore("vector"),
    fused: Type.Number({ description: "The fused score the results are ordered by (before calibration into `score`); non-increasing down the list." }),
    rules: Type.Array(Type.String(), {
      description:
        "Ranking rules that moved the fused score: `exact_match_first` (the keyword list held every match, so no vector-only hit passes one), " +
        "`document_evidence` (other strong chunks of the document added to it), and the query-time rules whose added words the chunk matched: " +
        "`synonyms` (a synonym of a query word), `typo` (a word a few edits from a misspelt query word), `prefix` (a completion of the last word, with `prefix: true`).",
    }),
  },
  { $id: "HitExplanation", description: "Why a hit ranks where it does (with `explain: true`)." },
);

export const SearchFilter = Type.Record(Type.String(), Type.Unknown(), {
  $id: "SearchFilter",
  description:
    "Restricts the search to documents that match, in the style of MongoDB filters. Fields: `data_source_id`, `document_id`, `file_type`, " +
    "`created_at`, `updated_at` (ISO 8601) and `metadata.<key>` (nested keys with dots). A bare value means equals; operators `$eq`, `$ne`, `$in`, `$nin`, " +
    "`$gt`, `$gte`, `$lt`, `$lte`, `$exists` (metadata only); combinators `$and`, `$or` (arrays of filters) and `$not` (a filter). Several keys in one object must all match. " +
    "The results are the best of the matching documents, not a filtered page of the unfiltered results. A filter that cannot be read answers 422 naming the part to change.",
});

/** The properties SearchRequest and RetrieveRequest both take. */
export const searchControls = {
  hybrid: Type.Optional(ref(HybridBlend)),
  explain: Type.Optional(Type.Boolean({ default: false, description: "Add `explain` to each result: its lexical and vector rank and score, the fused score and the rules applied." })),
  filter: Type.Optional(ref(SearchFilter)),
  typo_tolerance: Type.Optional(
    Type.Boolean({
      default: true,
      description:
        "false: match the query's words as written. true (default) leaves typo tolerance as the collection has it (`settings.typo_tolerance`): " +
        "a word of 5+ characters absent from the collection or rare in it also finds words one edit away (two from 9 characters; the first letter kept), ranked below exact matches.",
    }),
  ),
  prefix: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "true: the last word of the query also matches the words it begins (search-as-you-type: `kube` finds `kubernetes`), exact matches first. " +
        "A query ending in a space or punctuation has no word being typed.",
    }),
  ),
};

export const FacetCounts = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer({ minimum: 1 })), {
  $id: "FacetCounts",
  description:
    "Per field asked for in `facets`, how many matched documents hold each value (numbers and booleans as text): the 100 most frequent values of a field at most. As in any JSON object, the order of the values carries no meaning: sort by count. " +
    "The matched documents are all those that match the query's words (not only the page, nor only the top candidates) plus the ranked semantic candidates, within the filter.",
});

/** SearchRequest.facets */
export const facetsField = Type.Optional(
  Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
    maxItems: 10,
    description: "Count the matched documents per value of these fields: `data_source_id`, `document_id`, `file_type`, `created_at`, `updated_at` or `metadata.<key>`. Answered in `facets`.",
  }),
);

const SynonymTerm = Type.String({ minLength: 1, maxLength: 100, description: "A word or a phrase; matched as the query parser reads text (case and accents folded)." });

export const Synonyms = strictObject(
  {
    groups: Type.Optional(
      Type.Array(Type.Array(SynonymTerm, { minItems: 2, maxItems: 50 }), {
        maxItems: 1000,
        description: "Multi-way: a query with any term of a group also finds the others.",
      }),
    ),
    mappings: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.Array(SynonymTerm, { minItems: 1, maxItems: 50 }), {
        maxProperties: 1000,
        description: "One-way: a query with the key also finds its values, not the reverse.",
      }),
    ),
  },
  {
    $id: "Synonyms",
    description:
      "A collection's synonyms, applied to the keyword half of hybrid search at query time (nothing is reindexed; the next search uses them). " +
      "A matched term adds its alternatives as extra keywords, and a multi-word alternative as a phrase as well. PUT replaces the whole set; an absent part is empty.",
  },
);

export const SuggestQuery = Type.Object({
  q: Type.String({ minLength: 1, maxLength: 200, description: "What is typed so far; its last word is completed (none when it ends in a space or punctuation)." }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: "Suggestions at most." })),
});

export const SuggestResponse = Type.Object(
  {
    suggestions: Type.Array(Type.String(), {
      description:
        "Best first: popular queries of the collection that begin with the text typed (normalised, lower case), then the text typed with its " +
        "last word completed from words of the collection's titles, headings and text that begin with it, a word in a title or heading counting " +
        "more than one in the text, as written (lower case).",
    }),
  },
  { $id: "SuggestResponse", description: "Completions for a search box." },
);
