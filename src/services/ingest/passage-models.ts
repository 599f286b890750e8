// Which model embeds a data source's chunks: the active profile's, or the whole-model adaptation of
// the collection that holds the source (issue 27 item 4; search/query-models.ts has its record and
// file). The collection service keeps a source with such an adaptation out of every other
// collection (collections/adapted-sources.ts), so a source has at most one. Read from the store on
// every call: an adaptation applied or reverted in another process counts at once.
import type { CollectionCatalog } from "../../store/content-store.js";
import type { AdaptedQueryEncoder } from "../../model/query-delta.js";
import { passageAdaptationId, type QueryModels } from "../search/query-models.js";

export interface PassageModelDeps {
  content: Pick<CollectionCatalog, "sourceLanguages" | "collectionScope">;
  models: Pick<QueryModels, "encoder" | "adaptable">;
}

export function createPassageModels(deps: PassageModelDeps) {
  return {
    /** The adapted encoder of each of these sources that has one; a source not in the map is embedded with the base model. */
    async forSources(tenantId: string, sourceIds: string[]): Promise<Map<string, AdaptedQueryEncoder>> {
      const out = new Map<string, AdaptedQueryEncoder>();
      // the backfill asks for every batch: with a model that cannot be adapted (USE lite) it costs nothing
      if (sourceIds.length === 0 || !deps.models.adaptable()) return out;
      const rows = await deps.content.sourceLanguages(tenantId, [...new Set(sourceIds)]);
      const collections = [...new Set(rows.map((r) => r.collection_id))].sort();
      for (const id of collections) {
        const scope = await deps.content.collectionScope(tenantId, id);
        const adaptation = scope ? passageAdaptationId(scope.settings) : undefined;
        const encoder = adaptation ? await deps.models.encoder(tenantId, adaptation) : null;
        if (!encoder?.bothSides) continue;
        for (const r of rows) if (r.collection_id === id && !out.has(r.data_source_id)) out.set(r.data_source_id, encoder);
      }
      return out;
    },
  };
}

export type PassageModels = ReturnType<typeof createPassageModels>;
