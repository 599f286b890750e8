// Uploads: each file read and sniffed, a records source's files split into one document per
// record, the batch accepted atomically (services/acceptance.ts) and its ingest jobs queued.
// Each step takes the service's dependencies first; uploadDocuments puts them in order.
import fsp from "node:fs/promises";
import { createHash } from "node:crypto";
import pMap from "p-map";
import type { TenantRow } from "../../store/types.js";
import { LimitReached, type DocumentRow, type IncomingDocument } from "../../store/content-types.js";
import { newId } from "../../store/ids.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { badRequest, notFound, ServiceError, ValidationError } from "../errors.js";
import { limitsOf } from "../tenants/plans.js";
import { quotaExceededError } from "../tenants/quotas.js";
import { safeFileName, sniffFile, unsupportedFileMessage } from "../../ingest/sniff.js";
import { acceptDocuments } from "./acceptance.js";
import { splitRecords } from "../../ingest/parse/records.js";
import { isParseError } from "../../ingest/parse/errors.js";
import { documentOut, queueIngest, type DocumentOut, type DocumentServiceDeps, type UploadedFile } from "./document-types.js";

const titleFromName = (name: string) => name.replace(/\.[A-Za-z0-9]{1,8}$/, "") || name;

const PREPARE_CONCURRENCY = 8;

interface PreparedFile {
  doc: IncomingDocument;
  tempPath: string | null;
  /** why the file cannot be indexed, or null */
  failure: string | null;
}

/** Reads an uploaded temp file, sniffs its type and describes the document it becomes. */
async function prepareFile(f: UploadedFile): Promise<PreparedFile> {
  const name = safeFileName(f.filename || "upload");
  const bytes = await fsp.readFile(f.tempPath);
  let failure: string | null = null;
  let kind: string | null = null;
  if (bytes.length === 0) failure = `"${name}" is empty (0 bytes); there is nothing to index.`;
  else {
    const sniffed = await sniffFile(bytes, name, f.mimetype);
    if (sniffed.kind === null) failure = unsupportedFileMessage(name, sniffed.reason);
    else kind = sniffed.kind;
  }
  return {
    tempPath: f.tempPath,
    failure,
    doc: {
      id: newId("doc"),
      source: name,
      title: titleFromName(name),
      source_type: "upload",
      kind,
      content_type: f.mimetype ?? null,
      size_bytes: bytes.length,
      content_hash: createHash("sha256").update(bytes).digest("hex"),
      metadata: { filename: name, ...(kind ? { file_type: kind } : {}) },
    },
  };
}

/**
 * A records source (`configuration.records: true`) turns an uploaded CSV (one per data row) or
 * JSON array / JSON Lines file (one per element) into one Markdown document per record, named
 * "<file>#<n>", with the record's fields as its metadata (plus `filename`, `file_type` and
 * `record`, which win over fields of the same name). Other files, and files that are no records,
 * stay as they are (a file that cannot be split fails with the reason). `created` collects the
 * temp files written, for the caller's cleanup.
 */
async function splitIntoRecords(x: PreparedFile, created: string[]): Promise<PreparedFile[]> {
  const kind = x.doc.kind;
  if (x.failure || !x.tempPath || (kind !== "csv" && kind !== "json")) return [x];
  const bytes = await fsp.readFile(x.tempPath);
  let records;
  try {
    records = splitRecords(bytes, x.doc.source, kind, x.doc.title);
  } catch (err) {
    if (isParseError(err)) return [{ ...x, failure: err.message }];
    throw err;
  }
  const base = x.tempPath;
  return pMap(
    records,
    async (r): Promise<PreparedFile> => {
      const body = Buffer.from(r.markdown, "utf8");
      const tempPath = `${base}.record-${r.index}`;
      created.push(tempPath);
      await fsp.writeFile(tempPath, body);
      return {
        tempPath,
        failure: null,
        doc: {
          id: newId("doc"),
          source: `${x.doc.source}#${r.index}`,
          title: r.title,
          source_type: "upload",
          kind: "markdown",
          content_type: "text/markdown",
          size_bytes: body.length,
          content_hash: createHash("sha256").update(body).digest("hex"),
          metadata: { ...r.fields, filename: x.doc.source, file_type: kind, record: r.index },
        },
      };
    },
    { concurrency: PREPARE_CONCURRENCY },
  );
}

/** The upload source of the batch, or the 404/400/422 that refuses the whole batch. */
async function uploadSource(deps: Pick<DocumentServiceDeps, "store">, tenantId: string, sourceId: string, files: UploadedFile[]) {
  const source = await deps.store.content.getSource(tenantId, sourceId);
  if (!source) throw notFound("Data source", sourceId);
  if (source.source_type !== "upload") {
    throw badRequest(`Data source '${sourceId}' is a ${source.source_type} source; upload files to a source of type 'upload'.`);
  }
  if (files.length === 0) {
    throw new ValidationError([{ type: "missing", loc: ["body", "files"], msg: "Field required: send one or more files", input: null }]);
  }
  return source;
}

/** The batch's documents, one per file or per record, the last of each name only. */
async function prepareBatch(files: UploadedFile[], records: boolean, recordTemps: string[]): Promise<PreparedFile[]> {
  // Files are read and sniffed a few at a time: one after another, each file's handful of
  // I/O steps waits behind every search the event loop serves meanwhile, so a batch takes
  // seconds under search load; all at once, 100 files at the upload limit would be held in
  // memory together.
  let prepared = await pMap(files, (f) => prepareFile(f), { concurrency: PREPARE_CONCURRENCY });
  if (records) {
    prepared = (await pMap(prepared, (x) => splitIntoRecords(x, recordTemps), { concurrency: 1 })).flat();
  }
  const seen = new Map<string, number>();
  prepared.forEach((x, i) => seen.set(x.doc.source, i));
  // Two files with the same name in one batch: the later one wins, as a re-upload would.
  // Only one row per name can exist in a source, so the earlier ones are dropped here.
  for (let i = prepared.length - 1; i >= 0; i--) if (seen.get(prepared[i].doc.source) !== i) prepared.splice(i, 1);
  return prepared;
}

/** When no file of the batch can be indexed the request is refused (415, or 422 for empty files). */
function refuseUnusable(prepared: PreparedFile[]): void {
  const usable = prepared.filter((x) => !x.failure);
  if (usable.length > 0) return;
  const allEmpty = prepared.every((x) => x.doc.size_bytes === 0);
  if (allEmpty) {
    throw new ValidationError(prepared.map((x, i) => ({ type: "value_error", loc: ["body", "files", i], msg: x.failure!, input: x.doc.source })));
  }
  throw new ServiceError("unsupported_media_type", prepared.map((x) => x.failure).join(" "));
}

async function acceptBatch(deps: Pick<DocumentServiceDeps, "store" | "files">, tenant: TenantRow, sourceId: string, prepared: PreparedFile[]): Promise<DocumentRow[]> {
  try {
    return await acceptDocuments(
      { content: deps.store.content, files: deps.files },
      tenant.id,
      sourceId,
      prepared.map((x) => ({ doc: x.doc, tempPath: x.failure ? null : x.tempPath })),
      limitsOf(tenant.plan).documents,
    );
  } catch (err) {
    if (err instanceof LimitReached) throw quotaExceededError("documents", tenant.plan, err.used, err.limit, err.adding);
    throw err;
  }
}

/** Rows are committed (queued) with their bytes in place; failures end at once, the rest is queued. */
async function settleRows(deps: DocumentServiceDeps, tenantId: string, prepared: PreparedFile[], rows: DocumentRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i++) {
    const x = prepared[i];
    if (x.failure) {
      await deps.store.content.setDocumentStatus(tenantId, rows[i].id, "failed", x.failure);
      // a refused re-upload replaces the earlier version: its bytes are not kept either
      await deps.files.remove(tenantId, rows[i].id);
      rows[i] = { ...rows[i], status: "failed", error: x.failure, chunk_count: 0 };
    } else {
      await queueIngest(deps, tenantId, rows[i].id);
    }
  }
}

/**
 * Accepts a batch. Files of an unsupported type or with no bytes become `failed` documents
 * with the reason, so one bad file does not lose the others; when no file of the batch can
 * be indexed the request is refused (415, or 422 for empty files) and nothing is stored.
 */
export async function uploadDocuments(deps: DocumentServiceDeps, p: Principal, sourceId: string, files: UploadedFile[]): Promise<DocumentOut[]> {
  const tenant = tenantOf(p);
  const recordTemps: string[] = [];
  try {
    const source = await uploadSource(deps, tenant.id, sourceId, files);
    const prepared = await prepareBatch(files, source.configuration?.records === true, recordTemps);
    refuseUnusable(prepared);
    const rows = await acceptBatch(deps, tenant, sourceId, prepared);
    await settleRows(deps, tenant.id, prepared, rows);
    return rows.map(documentOut);
  } finally {
    await Promise.all([...files.map((f) => f.tempPath), ...recordTemps].map((t) => fsp.rm(t, { force: true })));
  }
}
