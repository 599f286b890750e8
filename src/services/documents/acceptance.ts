// Atomic acceptance of documents: a document row is committed only once its bytes are stored,
// and a crash at any point leaves either nothing the client never heard of, or a complete
// document that start-up finishes placing.
//
// The steps: each file is staged beside its final place under a tag naming its version (the
// content hash the row will record); the rows are committed in one transaction; then each staged
// file is renamed into place. A crash before the commit leaves only staged files, which start-up
// discards. A crash after it leaves committed rows whose staged file carries their tag, which
// start-up renames into place, so the queued documents index normally. A re-upload never
// overwrites the acknowledged version's bytes before its own rows are committed.
import type { Logger } from "pino";
import type { DocumentRow, IncomingDocument } from "../../store/content-types.js";
import type { DocumentCatalog } from "../../store/content-store.js";
import type { FileStore } from "../../store/files.js";
import pMap from "p-map";

export interface Acceptance {
  doc: IncomingDocument;
  /** the finished temp file with the bytes, or null for a document without bytes (failed at once) */
  tempPath: string | null;
}

/** Staged files without a committed row are discarded after this age (another process may be mid-upload). */
const STALE_STAGED_MS = 10 * 60 * 1000;

const tagOf = (doc: IncomingDocument) => (doc.content_hash || "none").slice(0, 32);

/**
 * Stores the bytes and commits the rows of a batch (upsertDocuments: LimitReached passes through,
 * with nothing kept). Same-named documents are replaced in place, keeping their ids.
 */
export async function acceptDocuments(
  deps: { content: DocumentCatalog; files: FileStore },
  tenantId: string,
  sourceId: string,
  items: Acceptance[],
  limit: number | null,
): Promise<DocumentRow[]> {
  const planned = await pMap(
    items,
    async (it) => ({ ...it.doc, id: (await deps.content.findDocumentBySource(tenantId, sourceId, it.doc.source))?.id ?? it.doc.id }),
    { concurrency: 8 },
  );
  const staged: number[] = [];
  const discardStaged = () =>
    Promise.all(staged.map((i) => deps.files.discardStaged(tenantId, planned[i].id, tagOf(planned[i])).catch(() => undefined)));
  let rows: DocumentRow[];
  try {
    // renames, a few at a time (see documents.ts: sequential I/O steps queue behind other requests)
    await pMap(
      items.map((it, i) => ({ it, i })).filter(({ it }) => it.tempPath),
      async ({ it, i }) => {
        await deps.files.stage(tenantId, planned[i].id, tagOf(planned[i]), it.tempPath!);
        it.tempPath = null; // moved: the caller's cleanup must not look for it
        staged.push(i);
      },
      { concurrency: 8 },
    );
    rows = await deps.content.upsertDocuments(tenantId, sourceId, planned, limit);
  } catch (err) {
    await discardStaged(); // nothing was committed: upsertDocuments is one transaction
    throw err;
  }
  // Committed: a failure from here on is finished by start-up recovery (the rows carry the tags).
  await pMap(staged, (i) => deps.files.place(tenantId, planned[i].id, tagOf(planned[i]), rows[i].id), { concurrency: 8 });
  return rows;
}

/**
 * Start-up: staged files whose row was committed with their tag are placed (the crash came after
 * the commit); the others are discarded once stale (the crash came before it). Runs before the
 * ingest queue requeues queued documents.
 */
export async function recoverStagedFiles(deps: { content: DocumentCatalog; files: FileStore; log: Logger }): Promise<{ placed: number; discarded: number }> {
  let placed = 0;
  let discarded = 0;
  for (const f of await deps.files.staged()) {
    const row = await deps.content.getDocument(f.tenantId, f.documentId);
    if (row && (row.content_hash || "none").slice(0, 32) === f.tag) {
      await deps.files.place(f.tenantId, f.documentId, f.tag, f.documentId);
      placed++;
    } else if (f.ageMs > STALE_STAGED_MS) {
      await deps.files.discardStaged(f.tenantId, f.documentId, f.tag);
      discarded++;
    }
  }
  if (placed || discarded) deps.log.info({ placed, discarded }, "finished or discarded uploads cut off by a crash");
  return { placed, discarded };
}
