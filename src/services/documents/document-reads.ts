// Reading and removing documents: pages of the list, one document, its chunks (all, or around a
// position), reindexing and deletion. Each operation takes the service's dependencies first.
import type { DocumentStatus } from "../../store/content-types.js";
import { decodeKeyset, page } from "../paging.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { notFound, ServiceError } from "../errors.js";
import { chunkOut, documentOut, documentRow, queueIngest, type DocumentOut, type DocumentServiceDeps } from "./document-types.js";

type Deps = Pick<DocumentServiceDeps, "store">;

export type DocumentFilter = { collection_id?: string; data_source_id?: string; status?: DocumentStatus; limit?: number; cursor?: string };

/** newest first, `limit` (200) at a time; `next` is the cursor of the following page, if any */
export async function listDocumentPage(deps: Deps, p: Principal, f: DocumentFilter): Promise<{ items: DocumentOut[]; next: string | null }> {
  const tenant = tenantOf(p);
  if (f.collection_id && !(await deps.store.content.getCollection(tenant.id, f.collection_id))) throw notFound("Collection", f.collection_id);
  if (f.data_source_id && !(await deps.store.content.getSource(tenant.id, f.data_source_id))) throw notFound("Data source", f.data_source_id);
  const limit = f.limit ?? 200;
  const rows = await deps.store.content.listDocuments(tenant.id, {
    collectionId: f.collection_id,
    sourceId: f.data_source_id,
    status: f.status,
    before: f.cursor ? decodeKeyset(f.cursor) : undefined,
    limit: limit + 1,
  });
  const { items, next } = page(rows, limit);
  return { items: items.map(documentOut), next };
}

export async function getDocument(deps: Deps, p: Principal, id: string): Promise<DocumentOut> {
  return documentOut(await documentRow(deps, tenantOf(p).id, id));
}

export async function documentChunks(deps: Deps, p: Principal, id: string, limit: number) {
  const tenant = tenantOf(p);
  await documentRow(deps, tenant.id, id);
  const { total, chunks } = await deps.store.content.listChunks(tenant.id, id, limit);
  return { document_id: id, total, chunks: chunks.map(chunkOut) };
}

/**
 * The chunk at `position` with up to `window` neighbours each side, in order: how an agent
 * follows a citation (document_id and position are in every search hit and retrieve context).
 */
export async function chunksAround(deps: Deps, p: Principal, id: string, position: number, window: number) {
  const tenant = tenantOf(p);
  const doc = await documentRow(deps, tenant.id, id);
  const rows = await deps.store.content.chunksInRanges(tenant.id, [{ documentId: id, fromPosition: position - window, toPosition: position + window }]);
  if (!rows.some((r) => r.position === position)) {
    const range = doc.chunk_count > 0 ? `positions 0 to ${doc.chunk_count - 1}` : "no indexed chunks yet";
    throw new ServiceError("not_found", `Document '${id}' has no chunk at position ${position} (${range}).`);
  }
  return { document: documentOut(doc), chunks: rows.map(chunkOut) };
}

/**
 * Re-parses, re-chunks and re-embeds stored content with the current profile. Documents keep
 * their status and old chunks (search keeps answering) until each one is replaced.
 */
export async function reindexDocuments(deps: Pick<DocumentServiceDeps, "store" | "queue" | "log" | "profileName">, p: Principal, sourceId?: string) {
  const tenant = tenantOf(p);
  if (sourceId && !(await deps.store.content.getSource(tenant.id, sourceId))) throw notFound("Data source", sourceId);
  const ids = await deps.store.content.documentIds(tenant.id, sourceId);
  for (const id of ids) await queueIngest(deps, tenant.id, id);
  return { status: "queued", documents: ids.length, embedding_profile: deps.profileName };
}

export async function removeDocument(deps: Pick<DocumentServiceDeps, "store" | "files" | "audit">, p: Principal, id: string): Promise<void> {
  const tenant = tenantOf(p);
  if (!(await deps.store.content.deleteDocument(tenant.id, id))) throw notFound("Document", id);
  await deps.files.remove(tenant.id, id);
  await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "document.deleted", target: { type: "document", id } });
}
