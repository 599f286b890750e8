// Where one embedding index's graphs are saved (DATA_DIR/vectors/<index>/<tenant>/<source>): the
// usearch file and a JSON manifest with the log position it holds and the settings it was built
// with, both written atomically (temp file, rename) so a crash never leaves half a graph.
import fs from "node:fs";
import path from "node:path";

export interface GraphMeta {
  seq: number;
  count: number;
  dimension: number;
  quantization: string;
  connectivity: number;
  /** how it was built (GRAPH_BUILD in ann-graph.ts); older files are rebuilt */
  build?: number;
}

export interface GraphFiles {
  graph: string;
  meta: string;
}

export const safeName = (s: string) => (/^[A-Za-z0-9_-]{1,100}$/.test(s) ? s : encodeURIComponent(s).replace(/%/g, "~"));

export function graphFiles(dir: string, tenantId: string, sourceId: string): GraphFiles {
  const base = path.join(dir, safeName(tenantId), safeName(sourceId));
  return { graph: `${base}.usearch`, meta: `${base}.json` };
}

/** The manifest, or null when it is missing or unreadable (the graph is then rebuilt). */
export function readMeta(f: GraphFiles): GraphMeta | null {
  try {
    const meta = JSON.parse(fs.readFileSync(f.meta, "utf8")) as GraphMeta;
    return fs.existsSync(f.graph) ? meta : null;
  } catch {
    return null;
  }
}

/** Writes the graph (when `save` is given) and then its manifest, each through a temp file. */
export function writeGraph(f: GraphFiles, meta: GraphMeta, save: ((file: string) => void) | null): void {
  fs.mkdirSync(path.dirname(f.graph), { recursive: true });
  const tmp = (file: string) => `${file}.${process.pid}.tmp`;
  if (save) {
    save(tmp(f.graph));
    fs.renameSync(tmp(f.graph), f.graph);
  }
  fs.writeFileSync(tmp(f.meta), JSON.stringify(meta));
  fs.renameSync(tmp(f.meta), f.meta);
}

export function removeGraph(f: GraphFiles): void {
  fs.rmSync(f.graph, { force: true });
  fs.rmSync(f.meta, { force: true });
}

/** Deletes every file under `dir` that is not one of `keep` (graphs of sources that are gone). */
export function removeStaleFiles(dir: string, keep: Set<string>): void {
  if (!fs.existsSync(dir)) return;
  for (const t of fs.readdirSync(dir)) {
    const td = path.join(dir, t);
    if (!fs.statSync(td).isDirectory()) continue;
    for (const f of fs.readdirSync(td)) if (!keep.has(path.join(td, f))) fs.rmSync(path.join(td, f), { force: true });
  }
}
