// POST /documents/upload: the multipart body is streamed part by part into temp files (never held
// in memory), then handed to the document service. documentRoutes (documents.ts) registers it.
import { Type } from "@sinclair/typebox";
import type { MultipartFile } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import fs from "node:fs";
import { pipeline } from "node:stream/promises";
import { errors, ref } from "../schemas/common.js";
import { DocumentOut, UploadBody } from "../schemas/content.js";
import { needs } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_TEXT } from "../../config.js";
import { ServiceError, ValidationError } from "../../services/errors.js";
import type { UploadedFile, DocumentService } from "../../services/documents/documents.js";

const MAX_FILES = 100;

/** What this route uses, and nothing else of the runtime. */
export interface DocumentUploadRouteDeps {
  documents: DocumentService;
  /** a fresh temp file path: each upload is streamed there before the service takes it */
  tempPath(): string;
}

export function registerUpload(app: RouteApp, deps: DocumentUploadRouteDeps) {
  app.post(
    "/documents/upload",
    {
      config: needs("ingest"),
      // The multipart body is read as a stream below; the schema documents it for OpenAPI.
      validatorCompiler: () => () => true,
      schema: {
        tags: ["documents"],
        summary: "Upload files (multipart: data_source_id, files); indexing runs in the background",
        description: `Each file may be up to ${MAX_UPLOAD_TEXT} (checked while streaming; 413 beyond). At most ${MAX_FILES} files a request. Files of an unsupported type become failed documents; when no file can be indexed the answer is 415.`,
        consumes: ["multipart/form-data"],
        body: ref(UploadBody),
        response: { 202: Type.Array(ref(DocumentOut)), ...errors(400, 401, 403, 404, 413, 415, 422, 429) },
      },
    },
    async (req, reply) => {
      if (!req.isMultipart()) {
        throw new ServiceError("unsupported_media_type", "Send files as multipart/form-data with fields data_source_id and files.");
      }
      const { files, sourceId } = await readUpload(req, deps);
      return reply.status(202).send(await deps.documents.upload(req.principal!, sourceId, files));
    },
  );
}

/** The upload's files (in temp files) and its data_source_id; on any failure no temp file is left. */
async function readUpload(req: FastifyRequest, deps: DocumentUploadRouteDeps): Promise<{ files: UploadedFile[]; sourceId: string }> {
  const files: UploadedFile[] = [];
  let sourceId: string | undefined;
  try {
    for await (const part of req.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: MAX_FILES, fields: 20, fieldSize: 4096 } })) {
      if (part.type === "file") {
        await saveFilePart(part, files, deps.tempPath);
      } else if (part.fieldname === "data_source_id") {
        sourceId = String(part.value);
      }
    }
  } catch (err) {
    await removeTempFiles(files);
    throw unreadableBody(err);
  }
  if (!sourceId) {
    await removeTempFiles(files);
    throw new ValidationError([{ type: "missing", loc: ["body", "data_source_id"], msg: "Field required", input: null }]);
  }
  return { files, sourceId };
}

/** Streams one file part to a fresh temp file; the file is in `files` before streaming so a failure cleans it up. */
async function saveFilePart(part: MultipartFile, files: UploadedFile[], newTempPath: () => string) {
  if (part.fieldname !== "files" && part.fieldname !== "file") {
    part.file.resume();
    throw new ValidationError([{ type: "extra_forbidden", loc: ["body", part.fieldname], msg: "Send files in the field 'files'", input: part.filename }]);
  }
  const tempPath = newTempPath();
  const file: UploadedFile = { filename: part.filename, mimetype: part.mimetype, tempPath, size: 0 };
  files.push(file);
  const tooLarge = () => new ServiceError("payload_too_large", `"${part.filename}" is larger than ${MAX_UPLOAD_TEXT}, the upload limit.`);
  // Answer 413 the moment the limit is crossed: left alone, the parser would read (and
  // drop) the rest of an arbitrarily large body before the request could end.
  part.file.once("limit", () => part.file.destroy(tooLarge()));
  await pipeline(part.file, fs.createWriteStream(tempPath));
  if (part.file.truncated) throw tooLarge();
  file.size = part.file.bytesRead;
}

const removeTempFiles = (files: UploadedFile[]) => Promise.all(files.map((f) => fs.promises.rm(f.tempPath, { force: true })));

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
