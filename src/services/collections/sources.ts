import type { TenantRow } from "../../store/types.js";
import type { CollectionCatalog, SourceCatalog } from "../../store/content-store.js";
import type { FileStore } from "../../store/files.js";
import { LimitReached, type Json, type SourceView } from "../../store/content-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { notFound } from "../errors.js";
import { checkOneLanguage } from "./language.js";
import { limitsOf } from "../tenants/plans.js";
import { quotaExceededError } from "../tenants/quotas.js";
import type { AuditService } from "../tenants/audit.js";
import { gitConfiguration, gitSettings } from "../crawl/git-settings.js";

export interface DataSourceOut {
  id: string;
  collection_ids: string[];
  name: string;
  source_type: string;
  status: "ready" | "syncing" | "error";
  configuration: Json;
  last_synced_at: string | null;
  created_at: string;
  document_count: number;
  indexed_count: number;
  failed_count: number;
  /** extension: chunks of the source that are lexically searchable but still wait for their vector */
  chunks_pending_vectors: number;
  error: string | null;
}

/** Status is derived, never stored: syncing while work is pending, error after a failed sync. */
export function sourceOut(s: SourceView, syncing = false): DataSourceOut {
  const status = syncing || s.pending_count > 0 ? "syncing" : s.error ? "error" : "ready";
  return {
    id: s.id,
    collection_ids: s.collection_ids,
    name: s.name,
    source_type: s.source_type,
    status,
    configuration: s.configuration,
    last_synced_at: s.last_synced_at,
    created_at: s.created_at,
    document_count: s.document_count,
    indexed_count: s.indexed_count,
    failed_count: s.failed_count,
    chunks_pending_vectors: s.chunks_pending_vectors,
    error: s.error,
  };
}

/** Inserts a data source within the plan's source limit (429 beyond it); returns its id. */
export async function insertSource(
  store: { content: SourceCatalog },
  tenant: TenantRow,
  fields: { name: string; source_type: "upload" | "website" | "git"; configuration: Json },
  collectionIds: string[],
): Promise<string> {
  const id = newId("src");
  try {
    await store.content.createSource(
      { id, tenant_id: tenant.id, ...fields, error: null, last_synced_at: null, created_at: nowIso() },
      collectionIds,
      limitsOf(tenant.plan).sources,
    );
  } catch (err) {
    if (err instanceof LimitReached) throw quotaExceededError("sources", tenant.plan, err.used, err.limit, err.adding);
    throw err;
  }
  return id;
}

export function createSourceService(deps: {
  store: { content: SourceCatalog & CollectionCatalog };
  files: FileStore;
  isSyncing?: (sourceId: string) => Promise<boolean>;
  audit?: Pick<AuditService, "record">;
  /** git sources may name a repository on the server's disk (CRAWL_ALLOW_PRIVATE_NETWORKS) */
  allowLocalRepositories?: boolean;
  /** drops what this process keeps of a deleted source outside the store (a git source's mirror) */
  forgetSource?: (tenantId: string, sourceId: string) => Promise<void>;
}) {
  const content = deps.store.content;
  const out = async (s: SourceView) => sourceOut(s, deps.isSyncing ? await deps.isSyncing(s.id) : false);

  async function get(tenantId: string, id: string): Promise<SourceView> {
    const s = await content.getSource(tenantId, id);
    if (!s) throw notFound("Data source", id);
    return s;
  }

  return {
    async list(p: Principal, collectionId?: string): Promise<DataSourceOut[]> {
      const tenant = tenantOf(p);
      if (collectionId && !(await content.getCollection(tenant.id, collectionId))) throw notFound("Collection", collectionId);
      return Promise.all((await content.listSources(tenant.id, collectionId)).map(out));
    },

    async get(p: Principal, id: string): Promise<DataSourceOut> {
      return out(await get(tenantOf(p).id, id));
    },

    /** the raw view, for other services (uploads, crawls) */
    view: (tenantId: string, id: string) => get(tenantId, id),

    async create(p: Principal, body: { name: string; source_type: string; configuration?: Json; collection_ids?: string[] }) {
      const tenant = tenantOf(p);
      const collectionIds = [...new Set(body.collection_ids ?? [])];
      const found = new Set(await content.existingCollectionIds(tenant.id, collectionIds));
      const missing = collectionIds.find((c) => !found.has(c));
      if (missing) throw notFound("Collection", missing);
      await checkOneLanguage(content, tenant.id, collectionIds);
      const sourceType = body.source_type as "upload" | "website" | "git";
      // a git source's settings are checked now (400), so its first sync cannot fail on them
      const configuration = sourceType === "git" ? gitConfiguration(gitSettings(body.configuration ?? {}, deps.allowLocalRepositories ?? false)) : (body.configuration ?? {});
      const id = await insertSource(deps.store, tenant, { name: body.name, source_type: sourceType, configuration }, collectionIds);
      return out(await get(tenant.id, id));
    },

    async remove(p: Principal, id: string): Promise<void> {
      const tenant = tenantOf(p);
      const removed = await content.deleteSource(tenant.id, id);
      if (removed === null) throw notFound("Data source", id);
      await Promise.all(removed.map((d) => deps.files.remove(tenant.id, d)));
      await deps.forgetSource?.(tenant.id, id);
      await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "data_source.deleted", target: { type: "data_source", id }, detail: { documents: removed.length } });
    },
  };
}

export type SourceService = ReturnType<typeof createSourceService>;
