import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { errors, ref } from "../schemas/common.js";
import { RetrieveRequest, RetrieveResponse, SearchRequest, SearchResponse } from "../schemas/search.js";
import { needs } from "../route-config.js";
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
        config: needs("search"),
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
        config: needs("search"),
        schema: {
          tags,
          summary: "Chunks with citations and a token budget, for language models",
          body: ref(RetrieveRequest),
          response: { 200: ref(RetrieveResponse), ...errors(401, 403, 404, 422, 429) },
        },
      },
      async (req) => search.retrieve(req.principal!, req.body),
    );
  };
