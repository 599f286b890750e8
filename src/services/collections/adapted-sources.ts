// A collection's whole-model adaptation (settings.model_adaptation with kind "model", issue 27 item
// 4) embeds its data sources' chunks as well as its queries, and the store keeps one vector per
// chunk. So a source with such an adaptation belongs to that one collection (a 409 otherwise, as a
// source belongs to one language: language.ts), and every change that moves a source onto or off an
// adapted model (the adaptation turned on or off, a source attached or detached, the collection
// deleted) marks its chunks unembedded for the backfill, which embeds them with the model their
// source has now (ingest/passage-models.ts).
import type { CollectionCatalog, VectorStore } from "../../store/content-store.js";
import type { CollectionLanguage, Json } from "../../store/content-types.js";
import { passageAdaptationId } from "../search/query-models.js";
import { conflict } from "../errors.js";

/** A collection as the adapted-source rules see it: the whole-model adaptation it has on, and its sources. */
export interface ModelState {
  adaptation: string | undefined;
  ids: string[];
}

export const modelStateOf = (settings: Json, ids: string[]): ModelState => ({ adaptation: passageAdaptationId(settings), ids });
export const NO_MODEL: ModelState = { adaptation: undefined, ids: [] };

const TURN_OFF = "Turn the adaptation off (PATCH the collection with settings.model_adaptation.enabled false; its chunks are embedded again with the base model) or use a separate data source.";

/** The other collections that hold these sources, one row per (collection, source): what the sharing rules read. */
export async function otherCollections(content: Pick<CollectionCatalog, "sourceLanguages">, tenantId: string, collectionId: string, sourceIds: string[]): Promise<CollectionLanguage[]> {
  return (await content.sourceLanguages(tenantId, sourceIds)).filter((r) => r.collection_id !== collectionId);
}

/**
 * A 409 when the collection, as `after` describes it, would share a source whose chunks an adapted
 * model embeds; `others` is otherCollections of `after.ids`.
 */
export async function checkAdaptedSources(
  content: Pick<CollectionCatalog, "collectionScope">,
  tenantId: string,
  collectionId: string,
  after: ModelState,
  others: readonly CollectionLanguage[],
): Promise<void> {
  if (others.length === 0) return;
  if (after.adaptation) {
    const r = others[0]!;
    throw conflict(
      `Collection '${collectionId}' has a whole-model adaptation, which embeds its data sources' chunks with its own model, and data source '${r.data_source_id}' is also in collection '${r.collection_id}'; a data source's chunks are embedded with one model. ${TURN_OFF}`,
    );
  }
  for (const other of [...new Set(others.map((r) => r.collection_id))].sort()) {
    const scope = await content.collectionScope(tenantId, other);
    if (!scope || !passageAdaptationId(scope.settings)) continue;
    const r = others.find((x) => x.collection_id === other)!;
    throw conflict(
      `Data source '${r.data_source_id}' is in collection '${other}', whose whole-model adaptation embeds the source's chunks with that collection's own model; a data source's chunks are embedded with one model. Turn that adaptation off (PATCH collection '${other}' with settings.model_adaptation.enabled false) or use a separate data source.`,
    );
  }
}

/** The sources whose chunks' model changes from `before` to `after`. */
export function sourcesToReembed(before: ModelState, after: ModelState): string[] {
  if (before.adaptation !== after.adaptation) return [...new Set([...(before.adaptation ? before.ids : []), ...(after.adaptation ? after.ids : [])])];
  if (!after.adaptation) return [];
  const had = new Set(before.ids);
  const has = new Set(after.ids);
  return [...before.ids.filter((id) => !has.has(id)), ...after.ids.filter((id) => !had.has(id))];
}

/** Marks the chunks of the sources whose model changed unembedded, and asks for the backfill. */
export async function reembedChanged(
  content: Pick<VectorStore, "resetEmbeddings">,
  tenantId: string,
  before: ModelState,
  after: ModelState,
  vectorsStale?: () => void,
): Promise<void> {
  const ids = sourcesToReembed(before, after);
  if (ids.length === 0) return;
  await content.resetEmbeddings(tenantId, ids);
  vectorsStale?.();
}
