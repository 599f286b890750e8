// The one definition of Quarry's agent tools: name, scope, a description written for a language
// model, and the input schema (JSON Schema via TypeBox). The MCP server serves these schemas as
// they are; openai-tools.ts derives the OpenAI Chat Completions, OpenAI Responses and Anthropic
// shapes (strict mode) from them, so no shape can drift from what the tools accept.
import { Type, type TObject } from "@sinclair/typebox";
import type { Scope } from "../../store/types.js";

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** minimum scope of the key; tools above the key's scope are neither listed nor callable */
  scope: Scope;
  /** changes nothing (MCP readOnlyHint) */
  readOnly: boolean;
  input: TObject;
}

const collectionId = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "Id of the collection to search, as returned by list_collections. Example: \"col_3k9x2mqp\".",
});
const query = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    "What to look for, in natural language or keywords; exact terms such as error codes or product names match best when quoted as they appear. Example: \"how do I rotate an API key\".",
});
const documentId = Type.String({
  minLength: 1,
  maxLength: 200,
  description: "Id of the document, as given in search results and retrieve contexts (document_id). Example: \"doc_7d2hq0va\".",
});
const minScore = Type.Optional(
  Type.Number({
    minimum: 0,
    maximum: 1,
    default: 0,
    description: "Leave out results whose score (relevance 0 to 1, comparable across queries) is below this, e.g. 0.3 to drop weak matches. Default 0 keeps all.",
  }),
);

// Filters travel as JSON text: strict-mode tool shapes need every object's properties named, and
// a filter's are the caller's metadata keys (docs/decisions.md, "Search controls in the tools").
const filter = Type.Optional(
  Type.String({
    maxLength: 20000,
    description:
      "Only search documents that match this filter, given as JSON text in the style of MongoDB: fields data_source_id, document_id, file_type, created_at, updated_at (ISO dates) and metadata.<key>; " +
      "a bare value means equals; operators $eq $ne $in $nin $gt $gte $lt $lte $exists; $and, $or, $not. Leave out (or null) to search everything. " +
      'Example: "{\\"metadata.product\\": \\"cli\\", \\"created_at\\": {\\"$gte\\": \\"2026-01-01\\"}}".',
  }),
);
const semanticRatio = Type.Optional(
  Type.Number({
    minimum: 0,
    maximum: 1,
    description: "How much meaning outweighs exact words, 0 to 1: 0 matches keywords only (best for codes and names), 1 meaning only (paraphrases). Leave out for the collection's own blend.",
  }),
);

const typoTolerance = Type.Optional(
  Type.Boolean({
    default: true,
    description:
      "true (default): a misspelt keyword of 5+ letters also finds the words one or two letters away, ranked below exact matches. false: keywords only as written (codes, names, exact terms).",
  }),
);

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: "list_collections",
    title: "List collections",
    scope: "search",
    readOnly: true,
    description:
      "List the collections of this workspace with their ids, names, descriptions and how many documents each holds (and how many are indexed). Call this first to find the collection_id that search and retrieve need. Takes no arguments.",
    input: Type.Object({}, { additionalProperties: false }),
  },
  {
    name: "search",
    title: "Search a collection",
    scope: "search",
    readOnly: true,
    description:
      "Hybrid (keyword + semantic) search over one collection. Returns the best matching documents, one hit per document by default, each with title, source, a short snippet, highlights, score, document_id and chunk position. Use it to find which documents are relevant; use retrieve instead when you need full passages to quote or ground an answer. Example: {\"collection_id\": \"col_3k9x2mqp\", \"query\": \"refund policy for annual plans\", \"top_k\": 5}.",
    input: Type.Object(
      {
        collection_id: collectionId,
        query,
        top_k: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 50, default: 10, description: "How many hits to return, 1 to 50. Default 10." }),
        ),
        min_score: minScore,
        collapse_documents: Type.Optional(
          Type.Boolean({
            default: true,
            description: "true (default): one hit per document, its best chunk. false: several chunks of the same document may appear.",
          }),
        ),
        filter,
        semantic_ratio: semanticRatio,
        typo_tolerance: typoTolerance,
        facets: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
            maxItems: 10,
            description: "Also count the matching documents per value of these fields (e.g. [\"metadata.product\", \"file_type\"]), to see how results divide before narrowing with a filter.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "retrieve",
    title: "Retrieve passages with citations",
    scope: "search",
    readOnly: true,
    description:
      "Retrieve passages from one collection to ground an answer. Returns a ready-to-paste context block: each passage under a numbered header \"[n] title — source\"; cite passages by these numbers. The structured result holds the same passages (contexts with document_id, position, text, citation) and the cited documents. Passages are trimmed to max_tokens when given. Example: {\"collection_id\": \"col_3k9x2mqp\", \"query\": \"what is the gearbox lubrication interval\", \"top_k\": 5, \"context_window\": 1}.",
    input: Type.Object(
      {
        collection_id: collectionId,
        query,
        top_k: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 50, default: 8, description: "Maximum number of matching passages, 1 to 50. Default 8." }),
        ),
        min_score: minScore,
        max_chunks_per_document: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 20, default: 3, description: "At most this many passages from one document, 1 to 20. Default 3." }),
        ),
        context_window: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 2,
            default: 0,
            description: "Also return this many neighbouring chunks before and after each match (0 to 2), for more surrounding context. Default 0.",
          }),
        ),
        max_tokens: Type.Optional(
          Type.Integer({
            minimum: 100,
            maximum: 64000,
            description: "Token budget for all passages together (100 to 64000); the lowest-scored passages are dropped first. Leave out (or null) for no budget.",
          }),
        ),
        filter,
        semantic_ratio: semanticRatio,
        typo_tolerance: typoTolerance,
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "get_document",
    title: "Read a document",
    scope: "search",
    readOnly: true,
    description:
      "Read a document: its title, source, status and the text of its first chunks in order. Use it to follow a citation or a search hit when you need more than the passage you have. Example: {\"document_id\": \"doc_7d2hq0va\", \"max_chunks\": 10}.",
    input: Type.Object(
      {
        document_id: documentId,
        max_chunks: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "How many chunks of text to return from the start, 1 to 100. Default 10." }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "get_chunk",
    title: "Read a passage and its neighbours",
    scope: "search",
    readOnly: true,
    description:
      "Read one chunk of a document by its position (0-based, given as position in search hits and retrieve contexts), optionally with its neighbours, to see what comes before and after a cited passage. Example: {\"document_id\": \"doc_7d2hq0va\", \"position\": 4, \"context_window\": 1}.",
    input: Type.Object(
      {
        document_id: documentId,
        position: Type.Integer({ minimum: 0, maximum: 1000000, description: "0-based position of the chunk within the document. Example: 4." }),
        context_window: Type.Optional(
          Type.Integer({ minimum: 0, maximum: 5, default: 0, description: "Also return this many chunks before and after it, 0 to 5. Default 0." }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "suggest",
    title: "Complete a partly typed query",
    scope: "search",
    readOnly: true,
    description:
      "Complete a partly typed query in one collection, best first: queries people often asked there that begin with the text and found results, then the text with its last word completed from the collection's own titles, headings and text. Use it to see how a collection words a topic before searching, or to offer completions in a search box. Example: {\"collection_id\": \"col_3k9x2mqp\", \"prefix\": \"gearbox o\", \"limit\": 5}.",
    input: Type.Object(
      {
        collection_id: collectionId,
        prefix: Type.String({
          minLength: 1,
          maxLength: 200,
          description: "The text typed so far; its last word is completed (none when it ends in a space). Example: \"gearbox o\".",
        }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: "How many suggestions at most, 1 to 20. Default 5." })),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "add_url",
    title: "Crawl a website into a collection",
    scope: "ingest",
    readOnly: false,
    description:
      "Start crawling a website into a collection. The crawl runs in the background: pages become searchable as they are indexed (watch document_count in list_collections). It follows links on the same site up to max_depth and stops after page_limit pages; it obeys robots.txt. Returns the crawl job (id, status). Example: {\"url\": \"https://docs.example.com/\", \"collection_id\": \"col_3k9x2mqp\", \"page_limit\": 50}.",
    input: Type.Object(
      {
        url: Type.String({
          format: "uri",
          minLength: 1,
          maxLength: 2083,
          description: "Start page, an absolute http(s) URL. Example: \"https://docs.example.com/guide/\".",
        }),
        collection_id: Type.Optional(
          Type.String({ minLength: 1, maxLength: 200, description: "Collection the crawled pages are added to. Leave out (or null) to crawl without adding them to a collection." }),
        ),
        max_depth: Type.Optional(
          Type.Integer({ minimum: 0, maximum: 10, default: 2, description: "How many links deep to follow from the start page, 0 to 10. Default 2." }),
        ),
        page_limit: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 20000, default: 25, description: "Stop after this many pages, 1 to 20000. Default 25." }),
        ),
        include_paths: Type.Optional(
          Type.Array(Type.String({ maxLength: 2083 }), {
            maxItems: 50,
            description: "Only crawl URLs whose path starts with one of these prefixes (up to 50). Example: [\"/docs/\", \"/blog/\"]. Leave out (or null) for the whole site.",
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  {
    name: "upload_text",
    title: "Add a text document to a collection",
    scope: "ingest",
    readOnly: false,
    description:
      "Add a Markdown or plain-text document to a collection; it is indexed in the background and becomes searchable within seconds. Uploading again with the same title replaces the earlier version. Returns the document (id, status \"queued\"). Example: {\"collection_id\": \"col_3k9x2mqp\", \"title\": \"Meeting notes 2026-11-23\", \"text\": \"# Decisions\\n\\nWe ship on Friday.\"}.",
    input: Type.Object(
      {
        collection_id: collectionId,
        title: Type.String({
          minLength: 1,
          maxLength: 200,
          description: "Title of the document; also its name within the data source, so the same title replaces the earlier version. Example: \"Onboarding checklist\".",
        }),
        text: Type.String({ minLength: 1, maxLength: 1000000, description: "The content, Markdown or plain text, up to 1,000,000 characters." }),
        data_source_id: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: "Upload-type data source to store it in. Leave out (or null) to use the collection's \"Agent uploads\" source (created on first use).",
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
];

export const toolSpec = (name: string): ToolSpec | undefined => TOOL_SPECS.find((t) => t.name === name);
