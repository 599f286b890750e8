import type { CollectionCatalog } from "../../store/content-store.js";
import type { CollectionView, Json } from "../../store/content-types.js";
import { newId, nowIso } from "../../store/ids.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { notFound } from "../errors.js";
import type { AuditService } from "../tenants/audit.js";

export interface CollectionOut {
  id: string;
  name: string;
  description: string;
  created_at: string;
  document_count: number;
  indexed_count: number;
  data_source_count: number;
  data_source_ids: string[];
  settings: Json;
}

export const collectionOut = (c: CollectionView): CollectionOut => ({
  id: c.id,
  name: c.name,
  description: c.description,
  created_at: c.created_at,
  document_count: c.document_count,
  indexed_count: c.indexed_count,
  data_source_count: c.data_source_count,
  data_source_ids: c.data_source_ids,
  settings: c.settings,
});

export function createCollectionService(deps: { store: { content: CollectionCatalog }; audit?: Pick<AuditService, "record"> }) {
  const content = deps.store.content;

  /** Every id must be a data source of this tenant; another tenant's id reads as missing. */
  async function requireSources(tenantId: string, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    const found = new Set(await content.existingSourceIds(tenantId, unique));
    const missing = unique.find((id) => !found.has(id));
    if (missing) throw notFound("Data source", missing);
    return unique;
  }

  async function get(tenantId: string, id: string): Promise<CollectionOut> {
    const c = await content.getCollection(tenantId, id);
    if (!c) throw notFound("Collection", id);
    return collectionOut(c);
  }

  return {
    async list(p: Principal): Promise<CollectionOut[]> {
      return (await content.listCollections(tenantOf(p).id)).map(collectionOut);
    },
    get: (p: Principal, id: string) => get(tenantOf(p).id, id),

    async create(p: Principal, body: { name: string; description?: string; data_source_ids?: string[]; settings?: Json }) {
      const tenant = tenantOf(p);
      const ids = await requireSources(tenant.id, body.data_source_ids ?? []);
      const id = newId("col");
      await content.createCollection(
        { id, tenant_id: tenant.id, name: body.name, description: body.description ?? "", settings: body.settings ?? {}, created_at: nowIso() },
        ids,
      );
      return get(tenant.id, id);
    },

    async update(
      p: Principal,
      id: string,
      body: { name?: string | null; description?: string | null; data_source_ids?: string[] | null; settings?: Json | null },
    ) {
      const tenant = tenantOf(p);
      if (!(await content.getCollection(tenant.id, id))) throw notFound("Collection", id);
      const patch: { name?: string; description?: string; settings?: Json; data_source_ids?: string[] } = {};
      // null means "leave unchanged", as for absent fields (the contract's partial update)
      if (body.name != null) patch.name = body.name;
      if (body.description != null) patch.description = body.description;
      if (body.settings != null) patch.settings = body.settings;
      if (body.data_source_ids != null) patch.data_source_ids = await requireSources(tenant.id, body.data_source_ids);
      await content.updateCollection(tenant.id, id, patch);
      return get(tenant.id, id);
    },

    async remove(p: Principal, id: string): Promise<void> {
      const tenantId = tenantOf(p).id;
      if (!(await content.deleteCollection(tenantId, id))) throw notFound("Collection", id);
      await deps.audit?.record({ tenantId, actor: p, action: "collection.deleted", target: { type: "collection", id } });
    },

    async attach(p: Principal, id: string, sourceId: string) {
      const tenant = tenantOf(p);
      if (!(await content.getCollection(tenant.id, id))) throw notFound("Collection", id);
      await requireSources(tenant.id, [sourceId]);
      await content.attachSource(tenant.id, id, sourceId);
      return get(tenant.id, id);
    },

    async detach(p: Principal, id: string, sourceId: string): Promise<void> {
      const tenant = tenantOf(p);
      const c = await content.getCollection(tenant.id, id);
      if (!c) throw notFound("Collection", id);
      if (!(await content.detachSource(tenant.id, id, sourceId))) throw notFound("Data source", sourceId);
    },
  };
}

export type CollectionService = ReturnType<typeof createCollectionService>;
