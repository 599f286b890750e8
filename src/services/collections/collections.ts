import type { FileStore } from "../../store/files.js";
import { adaptationFileOf, adaptationOf } from "../search/query-models.js";
import type { CollectionCatalog, VectorStore } from "../../store/content-store.js";
import type { CollectionPatch, CollectionView, Json } from "../../store/content-types.js";
import { DEFAULT_LANGUAGE } from "../../search/lexical/languages.js";
import { checkLanguage, checkSharedSources, effectiveLanguage, sourcesToReanalyse } from "./language.js";
import { checkAdaptedSources, modelStateOf, NO_MODEL, otherCollections, reembedChanged, type ModelState } from "./adapted-sources.js";
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
  /** ISO 639-1 code or "auto" */
  language: string;
  /** present when the change queued its documents for indexing again (a language change) */
  reindex?: { status: "queued"; documents: number };
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
  language: effectiveLanguage(c.language),
});

/** Queues a data source's documents for indexing again (the document service's reindex). */
export type ReindexSource = (p: Principal, sourceId: string) => Promise<{ documents: number }>;

type CollectionUpdate = { name?: string | null; description?: string | null; data_source_ids?: string[] | null; settings?: Json | null; language?: string | null };

/** The fields a PATCH changes (its sources are checked by the caller); null means "leave unchanged", as for absent fields. */
function patchOf(body: CollectionUpdate): CollectionPatch {
  const patch: CollectionPatch = {};
  const language = checkLanguage(body.language);
  if (body.name != null) patch.name = body.name;
  if (body.description != null) patch.description = body.description;
  if (body.settings != null) patch.settings = body.settings;
  if (language !== undefined) patch.language = language;
  return patch;
}

/** Every id must be a data source of this tenant; another tenant's id reads as missing. */
async function requireSourcesIn(content: CollectionCatalog, tenantId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = new Set(await content.existingSourceIds(tenantId, unique));
  const missing = unique.find((id) => !found.has(id));
  if (missing) throw notFound("Data source", missing);
  return unique;
}

type CollectionDeps = {
  store: { content: CollectionCatalog & Pick<VectorStore, "resetEmbeddings"> };
  audit?: Pick<AuditService, "record">;
  reindex?: ReindexSource;
  /** where a collection's adapted query model lives (query-models.ts); removed with the collection */
  files?: Pick<FileStore, "remove">;
  /** chunks were marked unembedded (a whole-model adaptation turned on or off): the backfill's request */
  vectorsStale?: () => void;
};

/**
 * A change of a collection's sources or settings: checked (a source is analysed in one language
 * and embedded with one model), written, and the sources whose model changed embedded again.
 */
async function change(deps: CollectionDeps, tenantId: string, id: string, language: string, models: { before: ModelState; after: ModelState }, write: () => Promise<unknown>): Promise<void> {
  const content = deps.store.content;
  const others = await otherCollections(content, tenantId, id, models.after.ids);
  checkSharedSources(others, language);
  await checkAdaptedSources(content, tenantId, id, models.after, others);
  await write();
  await reembedChanged(content, tenantId, models.before, models.after, deps.vectorsStale);
}

async function getCollection(deps: CollectionDeps, tenantId: string, id: string): Promise<CollectionOut> {
  const c = await deps.store.content.getCollection(tenantId, id);
  if (!c) throw notFound("Collection", id);
  return collectionOut(c);
}

/** Sources whose analysis changed are indexed again; the collection as read after it. */
async function reanalysed(deps: CollectionDeps, p: Principal, id: string, sourceIds: string[]): Promise<CollectionOut> {
  let documents = 0;
  if (deps.reindex) for (const s of sourceIds) documents += (await deps.reindex(p, s)).documents;
  const out = await getCollection(deps, tenantOf(p).id, id);
  return sourceIds.length > 0 && deps.reindex ? { ...out, reindex: { status: "queued", documents } } : out;
}

export function createCollectionService(deps: CollectionDeps) {
  const content = deps.store.content;
  const requireSources = (tenantId: string, ids: string[]) => requireSourcesIn(content, tenantId, ids);
  const reembed = (tenantId: string, before: ModelState, after: ModelState) => reembedChanged(content, tenantId, before, after, deps.vectorsStale);

  return {
    async list(p: Principal): Promise<CollectionOut[]> {
      return (await content.listCollections(tenantOf(p).id)).map(collectionOut);
    },
    get: (p: Principal, id: string) => getCollection(deps, tenantOf(p).id, id),

    async create(p: Principal, body: { name: string; description?: string; data_source_ids?: string[]; settings?: Json; language?: string }) {
      const tenant = tenantOf(p);
      const language = checkLanguage(body.language);
      const ids = await requireSources(tenant.id, body.data_source_ids ?? []);
      const id = newId("col");
      const row = { id, tenant_id: tenant.id, name: body.name, description: body.description ?? "", settings: body.settings ?? {}, created_at: nowIso(), language: language ?? null };
      await change(deps, tenant.id, id, effectiveLanguage(language), { before: NO_MODEL, after: modelStateOf(row.settings, ids) }, () => content.createCollection(row, ids));
      return reanalysed(deps, p, id, sourcesToReanalyse({ language: DEFAULT_LANGUAGE, ids: [] }, { language: effectiveLanguage(language), ids }));
    },

    async update(p: Principal, id: string, body: CollectionUpdate) {
      const tenant = tenantOf(p);
      const old = await content.getCollection(tenant.id, id);
      if (!old) throw notFound("Collection", id);
      const patch = patchOf(body);
      if (body.data_source_ids != null) patch.data_source_ids = await requireSources(tenant.id, body.data_source_ids);
      const before = { language: effectiveLanguage(old.language), ids: old.data_source_ids };
      const after = { language: patch.language ?? before.language, ids: patch.data_source_ids ?? before.ids };
      const models = { before: modelStateOf(old.settings, before.ids), after: modelStateOf(patch.settings ?? old.settings, after.ids) };
      await change(deps, tenant.id, id, after.language, models, () => content.updateCollection(tenant.id, id, patch));
      return reanalysed(deps, p, id, sourcesToReanalyse(before, after));
    },

    async remove(p: Principal, id: string): Promise<void> {
      const tenantId = tenantOf(p).id;
      const scope = await content.collectionScope(tenantId, id);
      const adaptation = adaptationOf(scope?.settings ?? {});
      if (!(await content.deleteCollection(tenantId, id))) throw notFound("Collection", id);
      if (adaptation) await deps.files?.remove(tenantId, adaptationFileOf(adaptation.id));
      if (scope) await reembed(tenantId, modelStateOf(scope.settings, scope.data_source_ids), NO_MODEL);
      await deps.audit?.record({ tenantId, actor: p, action: "collection.deleted", target: { type: "collection", id } });
    },

    async attach(p: Principal, id: string, sourceId: string) {
      const tenant = tenantOf(p);
      const c = await content.getCollection(tenant.id, id);
      if (!c) throw notFound("Collection", id);
      await requireSources(tenant.id, [sourceId]);
      const language = effectiveLanguage(c.language);
      const ids = [...new Set([...c.data_source_ids, sourceId])];
      await change(deps, tenant.id, id, language, { before: modelStateOf(c.settings, c.data_source_ids), after: modelStateOf(c.settings, ids) }, () => content.attachSource(tenant.id, id, sourceId));
      return reanalysed(deps, p, id, sourcesToReanalyse({ language, ids: c.data_source_ids }, { language, ids }));
    },

    async detach(p: Principal, id: string, sourceId: string): Promise<void> {
      const tenant = tenantOf(p);
      const c = await content.getCollection(tenant.id, id);
      if (!c) throw notFound("Collection", id);
      if (!(await content.detachSource(tenant.id, id, sourceId))) throw notFound("Data source", sourceId);
      await reembed(tenant.id, modelStateOf(c.settings, c.data_source_ids), modelStateOf(c.settings, c.data_source_ids.filter((s) => s !== sourceId)));
      const language = effectiveLanguage(c.language);
      await reanalysed(deps, p, id, sourcesToReanalyse({ language, ids: [sourceId] }, { language, ids: [] }));
    },
  };
}

export type CollectionService = ReturnType<typeof createCollectionService>;
