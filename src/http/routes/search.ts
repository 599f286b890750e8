import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Runtime } from "../../runtime.js";
import { errors, ref } from "../schemas/common.js";
import { RetrieveRequest, RetrieveResponse, SearchRequest, SearchResponse } from "../schemas/search.js";
import { needs } from "../route-config.js";

export const searchRoutes =
  (rt: Runtime): FastifyPluginAsyncTypebox =>
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
      async (req) => rt.search.search(req.principal!, req.body),
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
      async (req) => rt.search.retrieve(req.principal!, req.body),
    );
  };
