import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { errors, ref } from "../schemas/common.js";
import { RetrieveRequest, RetrieveResponse, SearchRequest, SearchResponse } from "../schemas/search.js";
import { needs, searchAdmitted } from "../route-config.js";
import { SuggestQuery, SuggestResponse } from "../schemas/search-controls.js";
import { Type } from "@sinclair/typebox";
import type { SearchService } from "../../services/search/search.js";

/** What these routes use, and nothing else of the runtime. */
export interface SearchRouteDeps {
  search: SearchService;
}

export const searchRoutes =
  ({ search }: SearchRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["search"];
    app.post(
      "/search",
      {
        config: searchAdmitted,
        schema: {
          tags,
          summary: "Hybrid search: the best documents with snippets and highlights",
          body: ref(SearchRequest),
          response: { 200: ref(SearchResponse), ...errors(401, 403, 404, 422, 429) },
        },
      },
      async (req) => search.search(req.principal!, req.body),
    );
    app.post(
      "/retrieve",
      {
        config: searchAdmitted,
        schema: {
          tags,
          summary: "Chunks with citations and a token budget, for language models",
          body: ref(RetrieveRequest),
          response: { 200: ref(RetrieveResponse), ...errors(401, 403, 404, 422, 429) },
        },
      },
      async (req) => search.retrieve(req.principal!, req.body),
    );
    app.get(
      "/collections/:collection_id/suggest",
      {
        // what a search box calls: the search scope is enough
        config: needs("search"),
        schema: {
          tags,
          summary: "Complete the word being typed from the collection's titles, headings and text",
          params: Type.Object({ collection_id: Type.String() }),
          querystring: SuggestQuery,
          response: { 200: ref(SuggestResponse), ...errors(401, 403, 404, 422) },
        },
      },
      async (req) => search.suggest(req.principal!, req.params.collection_id, req.query.q, req.query.limit ?? 5),
    );
  };
