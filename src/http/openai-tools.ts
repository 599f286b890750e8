// Function-calling definitions for LLM agents. The parameters are the very schemas that validate
// POST /search and POST /retrieve, so the tools can never drift from the API.
import { SearchRequest, RetrieveRequest } from "./schemas/search.js";

function parameters(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

export function openAiTools() {
  return [
    {
      type: "function",
      function: {
        name: "search",
        description:
          "Search a Quarry collection and get the best matching documents with snippets (one hit per document by default). Call POST /search with these arguments.",
        parameters: parameters(SearchRequest),
      },
      "x-quarry-endpoint": { method: "POST", path: "/search" },
    },
    {
      type: "function",
      function: {
        name: "retrieve",
        description:
          "Retrieve passages from a Quarry collection to ground an answer: full chunk text with citation numbers, trimmed to a token budget. Use format 'text' for a ready-to-paste context block. Call POST /retrieve with these arguments.",
        parameters: parameters(RetrieveRequest),
      },
      "x-quarry-endpoint": { method: "POST", path: "/retrieve" },
    },
  ];
}
