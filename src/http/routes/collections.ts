import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { CollectionCreate, CollectionOut, CollectionUpdate } from "../schemas/content.js";
import { needs } from "../route-config.js";
import type { CollectionService } from "../../services/collections/collections.js";

const CollectionParams = Type.Object({ collection_id: Type.String() });
const LinkParams = Type.Object({ collection_id: Type.String(), data_source_id: Type.String() });

/** What these routes use, and nothing else of the runtime. */
export interface CollectionRouteDeps {
  collections: CollectionService;
}

export const collectionRoutes =
  ({ collections }: CollectionRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["collections"];
    const svc = collections;
    app.get(
      "/collections",
      { config: needs("search"), schema: { tags, summary: "List collections", response: { 200: Type.Array(ref(CollectionOut)), ...errors(401, 403) } } },
      async (req) => svc.list(req.principal!),
    );
    app.post(
      "/collections",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Create a collection", body: ref(CollectionCreate), response: { 201: ref(CollectionOut), ...errors(401, 403, 404, 409, 422) } },
      },
      async (req, reply) => reply.status(201).send(await svc.create(req.principal!, req.body)),
    );
    app.get(
      "/collections/:collection_id",
      { config: needs("search"), schema: { tags, summary: "Get a collection", params: CollectionParams, response: { 200: ref(CollectionOut), ...errors(401, 403, 404) } } },
      async (req) => svc.get(req.principal!, req.params.collection_id),
    );
    app.patch(
      "/collections/:collection_id",
      {
        config: needs("ingest"),
        schema: {
          tags,
          summary: "Update a collection; data_source_ids replaces the whole set",
          params: CollectionParams,
          body: ref(CollectionUpdate),
          response: { 200: ref(CollectionOut), ...errors(401, 403, 404, 409, 422) },
        },
      },
      async (req) => svc.update(req.principal!, req.params.collection_id, req.body),
    );
    app.delete(
      "/collections/:collection_id",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Delete a collection; its sources and documents stay", params: CollectionParams, response: { 204: Empty, ...errors(401, 403, 404) } },
      },
      async (req, reply) => {
        await svc.remove(req.principal!, req.params.collection_id);
        return reply.status(204).send(null);
      },
    );
    app.put(
      "/collections/:collection_id/data-sources/:data_source_id",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Attach a data source", params: LinkParams, response: { 200: ref(CollectionOut), ...errors(401, 403, 404, 409) } },
      },
      async (req) => svc.attach(req.principal!, req.params.collection_id, req.params.data_source_id),
    );
    app.delete(
      "/collections/:collection_id/data-sources/:data_source_id",
      {
        config: needs("ingest"),
        schema: {
          tags,
          summary: "Detach a data source; its documents stay indexed for other collections",
          params: LinkParams,
          response: { 204: Empty, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        await svc.detach(req.principal!, req.params.collection_id, req.params.data_source_id);
        return reply.status(204).send(null);
      },
    );
  };
