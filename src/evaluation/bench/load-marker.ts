// The marker file in a kept DATA_DIR: what the bench loaded there, so a later run with the same
// options reuses the load instead of importing the data set again.
import fs from "node:fs";
import path from "node:path";
import type { BenchOptions } from "./args.js";
import type { LoadStats } from "./load-types.js";

/** the file in a kept DATA_DIR that says what the bench loaded there (read by search-cpu.ts too) */
export const BENCH_MARKER = "bench-dataset.json";

export interface Marker {
  dataset: string;
  split: string;
  maxDocuments: number | null;
  limitQueries: number | null;
  profile: string;
  /** chunking the data was indexed with: a changed profile means the load is stale */
  chunking: string;
  /**
   * the model the passages were embedded with and its version (loadedModel): a profile keeps its
   * name and vector index when its model file changes (quarry-static), so a kept load embedded by
   * another file would be searched with this one's query vectors
   */
  model?: string;
  tenantId: string;
  collectionId: string;
  sourceId: string;
  suiteId: string | null;
  load: LoadStats;
}

/**
 * The marker of `dataDir`, or null for a new directory. A kept directory holding a database
 * without a marker is someone else's: refused rather than loaded into.
 */
export function readMarker(dataDir: string, temp: boolean): Marker | null {
  const markerFile = path.join(dataDir, BENCH_MARKER);
  const marker = fs.existsSync(markerFile) ? (JSON.parse(fs.readFileSync(markerFile, "utf8")) as Marker) : null;
  if (!marker && !temp && fs.readdirSync(dataDir).some((f) => f.startsWith("quarry.db"))) {
    throw new Error(`${dataDir} holds a Quarry database that the bench did not create; pass an empty or new --data-dir`);
  }
  return marker;
}

export function writeMarker(dataDir: string, marker: Marker): void {
  fs.writeFileSync(path.join(dataDir, BENCH_MARKER), JSON.stringify(marker, null, 2));
}

/** What a load's vectors were made by: the profile's model and the loaded file's version. */
export function loadedModel(rt: { activeProfile: { model: string }; embedderVersion(): string | null }): string {
  return `${rt.activeProfile.model} ${rt.embedderVersion() ?? "(no version)"}`;
}

/** Whether the marked load is the one these options, profile, chunking and model would make. */
export function sameLoad(marker: Marker, o: BenchOptions, profile: string, chunking: string, model: string): boolean {
  return (
    marker.model === model &&
    marker.dataset === o.dataset &&
    marker.split === o.split &&
    marker.maxDocuments === o.maxDocuments &&
    marker.limitQueries === o.limitQueries &&
    marker.profile === profile &&
    marker.chunking === chunking
  );
}
