import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import fs from "node:fs";
import { pipeline } from "node:stream/promises";
import { Empty, errors, ref } from "../schemas/common.js";
import { ChunkList, DocumentOut, UploadBody } from "../schemas/content.js";
import { needs } from "../route-config.js";
import { ServiceError, ValidationError } from "../../services/errors.js";
import type { UploadedFile, DocumentService } from "../../services/documents.js";
import { linkNext, pagingQuery } from "../paging.js";

const DocParams = Type.Object({ document_id: Type.String() });
const MAX_FILES = 100;

/**
 * The multipart parser reports a malformed body (no boundary, a part cut short) as a plain Error
 * without a code; that is the client's mistake (400), not ours. Too many files is a 422 on
 * body.files. Other errors with a code (ENOSPC, the framework's own FST_*) and our typed errors
 * pass through unchanged.
 */
function unreadableBody(err: unknown): unknown {
  if (err instanceof ServiceError || err instanceof ValidationError) return err;
  if (err instanceof Error && (err as { code?: unknown }).code === "FST_FILES_LIMIT") {
    return new ValidationError([
      { type: "too_long", loc: ["body", "files"], msg: `At most ${MAX_FILES} files per request; send the rest in another upload.`, input: null },
    ]);
  }
  if (!(err instanceof Error) || (err as { code?: unknown }).code !== undefined || (err as { statusCode?: unknown }).statusCode !== undefined) return err;
  return new ServiceError(
    "bad_request",
    `The multipart body could not be read (${err.message}). Send multipart/form-data with a data_source_id field and one or more files in the field 'files'.`,
  );
}

/** What these routes use, and nothing else of the runtime. */
export interface DocumentRouteDeps {
  documents: DocumentService;
  /** a fresh temp file path: each upload is streamed there before the service takes it */
  tempPath(): string;
  /** largest accepted file, checked while streaming (413) */
  maxUploadBytes: number;
}

export const documentRoutes =
  ({ documents, tempPath: newTempPath, maxUploadBytes }: DocumentRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["documents"];
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

    app.post(
      "/documents/upload",
      {
        config: needs("ingest"),
        // The multipart body is read as a stream below; the schema documents it for OpenAPI.
        validatorCompiler: () => () => true,
        schema: {
          tags,
          summary: "Upload files (multipart: data_source_id, files); indexing runs in the background",
          description: `Each file may be up to 50 MB (checked while streaming; 413 beyond). At most ${MAX_FILES} files a request. Files of an unsupported type become failed documents; when no file can be indexed the answer is 415.`,
          consumes: ["multipart/form-data"],
          body: ref(UploadBody),
          response: { 202: Type.Array(ref(DocumentOut)), ...errors(400, 401, 403, 404, 413, 415, 422, 429) },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart()) {
          throw new ServiceError("unsupported_media_type", "Send files as multipart/form-data with fields data_source_id and files.");
        }
        const files: UploadedFile[] = [];
        let sourceId: string | undefined;
        try {
          for await (const part of req.parts({ limits: { fileSize: maxUploadBytes, files: MAX_FILES, fields: 20, fieldSize: 4096 } })) {
            if (part.type === "file") {
              if (part.fieldname !== "files" && part.fieldname !== "file") {
                part.file.resume();
                throw new ValidationError([
                  { type: "extra_forbidden", loc: ["body", part.fieldname], msg: "Send files in the field 'files'", input: part.filename },
                ]);
              }
              const tempPath = newTempPath();
              files.push({ filename: part.filename, mimetype: part.mimetype, tempPath, size: 0 });
              const tooLarge = () => new ServiceError("payload_too_large", `"${part.filename}" is larger than 50 MB, the upload limit.`);
              // Answer 413 the moment the limit is crossed: left alone, the parser would read (and
              // drop) the rest of an arbitrarily large body before the request could end.
              part.file.once("limit", () => part.file.destroy(tooLarge()));
              await pipeline(part.file, fs.createWriteStream(tempPath));
              if (part.file.truncated) throw tooLarge();
              files[files.length - 1].size = part.file.bytesRead;
            } else if (part.fieldname === "data_source_id") {
              sourceId = String(part.value);
            }
          }
        } catch (err) {
          await Promise.all(files.map((f) => fs.promises.rm(f.tempPath, { force: true })));
          throw unreadableBody(err);
        }
        if (!sourceId) {
          await Promise.all(files.map((f) => fs.promises.rm(f.tempPath, { force: true })));
          throw new ValidationError([{ type: "missing", loc: ["body", "data_source_id"], msg: "Field required", input: null }]);
        }
        return reply.status(202).send(await documents.upload(req.principal!, sourceId, files));
      },
    );

    app.get(
      "/documents/:document_id",
      { config: needs("search"), schema: { tags, summary: "Get a document", params: DocParams, response: { 200: ref(DocumentOut), ...errors(401, 403, 404) } } },
      async (req) => documents.get(req.principal!, req.params.document_id),
    );

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
  };
