// Documents: listing, reading, their chunks and deleting. The upload (document-upload.ts, which
// streams a multipart body) is registered from here, second, so the OpenAPI document keeps its order.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { ChunkList, DocumentOut } from "../schemas/content.js";
import { needs } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import type { DocumentService } from "../../services/documents/documents.js";
import { linkNext, pagingQuery } from "../paging.js";
import { registerUpload } from "./document-upload.js";

const DocParams = Type.Object({ document_id: Type.String() });
const tags = ["documents"];

/** What these routes use, and nothing else of the runtime. */
export interface DocumentRouteDeps {
  documents: DocumentService;
  /** a fresh temp file path: each upload is streamed there before the service takes it */
  tempPath(): string;
}

export const documentRoutes =
  (deps: DocumentRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerList(app, deps.documents);
    registerUpload(app, deps);
    registerGet(app, deps.documents);
    registerChunks(app, deps.documents);
    registerDelete(app, deps.documents);
  };

function registerList(app: RouteApp, documents: DocumentService) {
  app.get(
    "/documents",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Documents, newest first (200 at a time)",
        description: "Filters: collection_id, data_source_id, status. Paged with limit and cursor: the next page is in the Link rel=\"next\" header; no header on the last page.",
        querystring: Type.Object({
          collection_id: Type.Optional(Type.String({ minLength: 1 })),
          data_source_id: Type.Optional(Type.String({ minLength: 1 })),
          status: Type.Optional(Type.Union(["queued", "processing", "indexed", "failed"].map((s) => Type.Literal(s)))),
          ...pagingQuery(200),
        }),
        response: { 200: Type.Array(ref(DocumentOut)), ...errors(400, 401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const { items, next } = await documents.listPage(req.principal!, req.query as Parameters<typeof documents.listPage>[1]);
      linkNext(req, reply, next);
      return items;
    },
  );
}

function registerGet(app: RouteApp, documents: DocumentService) {
  app.get(
    "/documents/:document_id",
    { config: needs("search"), schema: { tags, summary: "Get a document", params: DocParams, response: { 200: ref(DocumentOut), ...errors(401, 403, 404) } } },
    async (req) => documents.get(req.principal!, req.params.document_id),
  );
}

function registerChunks(app: RouteApp, documents: DocumentService) {
  app.get(
    "/documents/:document_id/chunks",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Indexed chunks of a document, in order",
        params: DocParams,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })) }),
        response: { 200: ref(ChunkList), ...errors(401, 403, 404, 422) },
      },
    },
    async (req) => documents.chunks(req.principal!, req.params.document_id, req.query.limit ?? 20),
  );
}

function registerDelete(app: RouteApp, documents: DocumentService) {
  app.delete(
    "/documents/:document_id",
    {
      config: needs("ingest"),
      schema: { tags, summary: "Delete a document, its stored file and its index entries", params: DocParams, response: { 204: Empty, ...errors(401, 403, 404) } },
    },
    async (req, reply) => {
      await documents.remove(req.principal!, req.params.document_id);
      return reply.status(204).send(null);
    },
  );
}
