// GET and PUT /collections/{collection_id}/synonyms (issue 28 item 3): a collection's synonym
// groups and one-way mappings, used by the next search (services/collections/synonyms.ts).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errors, ref } from "../schemas/common.js";
import { Synonyms } from "../schemas/search-controls.js";
import { needs } from "../route-config.js";
import type { SynonymService } from "../../services/collections/synonyms.js";

const CollectionParams = Type.Object({ collection_id: Type.String() });

/** What these routes use, and nothing else of the runtime. */
export interface SynonymRouteDeps {
  synonyms: SynonymService;
}

export const synonymRoutes =
  ({ synonyms }: SynonymRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["collections"];
    app.get(
      "/collections/:collection_id/synonyms",
      { config: needs("search"), schema: { tags, summary: "Get a collection's synonyms", params: CollectionParams, response: { 200: ref(Synonyms), ...errors(401, 403, 404) } } },
      async (req) => synonyms.get(req.principal!, req.params.collection_id),
    );
    app.put(
      "/collections/:collection_id/synonyms",
      {
        config: needs("ingest"),
        schema: {
          tags,
          summary: "Replace a collection's synonyms; the next search uses them",
          params: CollectionParams,
          body: ref(Synonyms),
          response: { 200: ref(Synonyms), ...errors(401, 403, 404, 422) },
        },
      },
      async (req) => synonyms.put(req.principal!, req.params.collection_id, req.body),
    );
  };
