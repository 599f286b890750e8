import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { DataSourceCreate, DataSourceOut, ReindexOut } from "../schemas/content.js";
import { needs } from "../route-config.js";
import type { SourceService } from "../../services/collections/sources.js";
import type { DocumentService } from "../../services/documents/documents.js";

const SourceParams = Type.Object({ data_source_id: Type.String() });

/** What these routes use, and nothing else of the runtime. */
export interface DataSourceRouteDeps {
  sources: SourceService;
  documents: Pick<DocumentService, "reindex">;
}

export const dataSourceRoutes =
  ({ sources, documents }: DataSourceRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["data-sources"];
    const svc = sources;
    app.get(
      "/data-sources",
      {
        config: needs("search"),
        schema: {
          tags,
          summary: "List data sources",
          querystring: Type.Object({ collection_id: Type.Optional(Type.String({ minLength: 1 })) }),
          response: { 200: Type.Array(ref(DataSourceOut)), ...errors(401, 403, 404, 422) },
        },
      },
      async (req) => svc.list(req.principal!, req.query.collection_id),
    );
    app.post(
      "/data-sources",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Create a data source", body: ref(DataSourceCreate), response: { 201: ref(DataSourceOut), ...errors(401, 403, 404, 409, 422, 429) } },
      },
      async (req, reply) => reply.status(201).send(await svc.create(req.principal!, req.body)),
    );
    app.get(
      "/data-sources/:data_source_id",
      {
        config: needs("search"),
        schema: { tags, summary: "Get a data source with indexed vs total counts", params: SourceParams, response: { 200: ref(DataSourceOut), ...errors(401, 403, 404) } },
      },
      async (req) => svc.get(req.principal!, req.params.data_source_id),
    );
    app.delete(
      "/data-sources/:data_source_id",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Delete a data source and every document in it", params: SourceParams, response: { 204: Empty, ...errors(401, 403, 404) } },
      },
      async (req, reply) => {
        await svc.remove(req.principal!, req.params.data_source_id);
        return reply.status(204).send(null);
      },
    );
    app.post(
      "/data-sources/:data_source_id/reindex",
      {
        config: needs("ingest"),
        schema: {
          tags,
          summary: "Re-parse, re-chunk and re-embed the stored content of a source with the current model",
          params: SourceParams,
          response: { 202: ref(ReindexOut), ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => reply.status(202).send(await documents.reindex(req.principal!, req.params.data_source_id)),
    );
    app.post(
      "/reindex",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Re-parse, re-chunk and re-embed the whole workspace", response: { 202: ref(ReindexOut), ...errors(401, 403) } },
      },
      async (req, reply) => reply.status(202).send(await documents.reindex(req.principal!)),
    );
  };
