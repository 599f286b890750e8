// A collection's adapted model (issue 27 item 4; evaluation/adaptation/ makes it): its record in
// the collection's settings (settings.model_adaptation), its file in the tenant's file store, and
// the in-process cache that embeds with it. A query adaptation (kind "queries", the default)
// embeds the collection's queries only, so turning it on or off (settings.model_adaptation.enabled)
// changes only which model embeds the next query; a whole-model adaptation (kind "model") embeds
// its sources' chunks too (services/ingest/passage-models.ts), and turning it on or off embeds
// them again (services/collections/adapted-sources.ts).
import type { Logger } from "pino";
import type { Json } from "../../store/content-types.js";
import type { FileStore } from "../../store/files.js";
import type { StaticBaseModel } from "../../embed/index.js";
import { LruCache } from "../../lru.js";
import { AdaptedQueryEncoder, decodeQueryDelta } from "../../model/query-delta.js";

/** settings.model_adaptation: what the adaptation applied, and whether queries use it. */
export interface ModelAdaptation {
  id: string;
  /** "model": the whole model, queries and passages (absent: "queries", queries only) */
  kind?: "queries" | "model";
  /** false: the collection's queries use the base model again (the revert setting) */
  enabled: boolean;
  /** the model and file version it was trained on; a different active model ignores it */
  base_model: string;
  created_at: string;
  /** heading -> section pairs of the collection when it was trained */
  pairs: number;
  /** tokens whose rows it changes */
  tokens: number;
  /** held-out nDCG@10 of the base model and of the adaptation */
  held_out: { base: number; adapted: number };
}

/** The file store's name for an adaptation's file (beside the tenant's originals; safe characters only). */
export const adaptationFileOf = (id: string) => `adaptation-${id}`;

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** The collection's adaptation record, or null when it has none (or a malformed one). */
export function adaptationOf(settings: Json): ModelAdaptation | null {
  const v = settings.model_adaptation;
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const a = v as Record<string, unknown>;
  return typeof a.id === "string" && ID_RE.test(a.id) ? (a as unknown as ModelAdaptation) : null;
}

/** The id of the adaptation the collection's queries use: recorded and not turned off. */
export function activeAdaptationId(settings: Json): string | undefined {
  const a = adaptationOf(settings);
  return a && a.enabled !== false ? a.id : undefined;
}

/** The id of the whole-model adaptation that embeds the collection's sources' chunks, if one is on. */
export function passageAdaptationId(settings: Json): string | undefined {
  const a = adaptationOf(settings);
  return a && a.enabled !== false && a.kind === "model" ? a.id : undefined;
}

/** adapted encoders kept in memory */
const CACHE_SIZE = 32;
/**
 * and at most this many bytes of them: a query delta is a few hundred KB, a whole-model one holds
 * tens of thousands of int8 rows (9 MB for the Node.js docs), so a byte budget bounds the cache
 * where a count would not
 */
const CACHE_BYTES = 160 * 1024 * 1024;

export function createQueryModels(deps: { files: Pick<FileStore, "read">; base: () => StaticBaseModel | null; log: Logger; maxBytes?: number }) {
  const cache = new LruCache<string, Promise<AdaptedQueryEncoder | null>>(CACHE_SIZE, deps.maxBytes ?? CACHE_BYTES);

  async function load(tenantId: string, id: string, base: StaticBaseModel): Promise<AdaptedQueryEncoder | null> {
    try {
      const buf = await deps.files.read(tenantId, adaptationFileOf(id));
      if (!buf) {
        deps.log.warn({ tenant: tenantId, adaptation: id }, "adapted query model not found; the collection's queries use the base model");
        return null;
      }
      const delta = decodeQueryDelta(buf);
      if (delta.baseModel !== base.model || delta.basePayloadSha256 !== base.payloadSha256) {
        deps.log.warn({ tenant: tenantId, adaptation: id, trained_on: delta.baseModel }, "adapted query model was trained on another model file; the collection's queries use the base model");
        return null;
      }
      return new AdaptedQueryEncoder(base.encoder, delta);
    } catch (err) {
      deps.log.warn({ err, tenant: tenantId, adaptation: id }, "adapted query model unreadable; the collection's queries use the base model");
      return null;
    }
  }

  /** the adaptation's encoder, or null when it cannot be used (the caller embeds with the base) */
  async function encoder(tenantId: string, id: string): Promise<AdaptedQueryEncoder | null> {
    const base = deps.base();
    if (!base) return null;
    const key = `${tenantId}/${id}/${base.payloadSha256}`;
    let p = cache.get(key);
    if (!p) {
      p = load(tenantId, id, base).then((e) => {
        if (e) cache.weigh(key, e.bytes);
        return e;
      });
      cache.set(key, p);
    }
    return p;
  }

  return {
    /** whether any collection can have an adapted model now (the active profile is Quarry's static model, loaded) */
    adaptable: () => deps.base() !== null,
    encoder,
    /** the query's vector under the adaptation, or null when it cannot be used (the caller embeds with the base) */
    async embedQuery(tenantId: string, id: string, text: string): Promise<Float32Array | null> {
      const e = await encoder(tenantId, id);
      return e ? e.embed(text) : null;
    },
  };
}

export type QueryModels = ReturnType<typeof createQueryModels>;
