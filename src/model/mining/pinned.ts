// Mining from a recorded package list (npm run model:data -- --packages model/data-packages.tsv).
// Without it the miner reads every installed package's manual pages and Info manuals and every npm
// package of the checkout, so two machines mine different pair sets, and the same recipe then
// differs by about 0.02 on the documentation sets (docs/model.md). With it each source reads only
// the packages the list names for it, and the run says which of them are missing or at another
// version: the pairs are the recorded ones exactly when nothing is.
import fs from "node:fs";
import type { PackageInfo } from "./debian.js";

/** source id -> package name (npm packages as `npm:<name>`) -> recorded version */
export type PinnedPackages = Map<string, Map<string, string>>;

export interface PinReport {
  /** listed packages not installed here, as `source package` */
  missing: string[];
  /** listed packages installed at another version, as `source package recorded -> here` */
  otherVersion: string[];
}

/** Reads a data-packages.tsv (source, package, version, licence; a header line). */
export function readPinnedPackages(file: string): PinnedPackages {
  const pinned: PinnedPackages = new Map();
  const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
  if (lines[0]?.split("\t").slice(0, 3).join(",") !== "source,package,version") {
    throw new Error(`${file} is not a package list: its first line should be "source<TAB>package<TAB>version<TAB>licence" (model/data-packages.tsv)`);
  }
  for (const line of lines.slice(1)) {
    const [source, name, version] = line.split("\t");
    if (!source || !name || version === undefined) throw new Error(`${file}: a line without source, package and version: ${JSON.stringify(line)}`);
    let of = pinned.get(source);
    if (!of) pinned.set(source, (of = new Map()));
    of.set(name, version);
  }
  return pinned;
}

/** Compares what a source found installed with what the list recorded for it. */
export class PinCheck {
  readonly report: PinReport = { missing: [], otherVersion: [] };

  constructor(readonly pinned: PinnedPackages) {}

  /** The names the list records for `source` (none: the source gave no pairs where it was made). */
  names(source: string): string[] {
    return [...(this.pinned.get(source)?.keys() ?? [])];
  }

  /** Notes a listed package that is absent (`found` undefined) or at another version. */
  check(source: string, name: string, found: PackageInfo | undefined): void {
    const recorded = this.pinned.get(source)?.get(name);
    if (recorded === undefined) return;
    if (!found) this.report.missing.push(`${source} ${name}`);
    else if (found.version !== recorded) this.report.otherVersion.push(`${source} ${name} ${recorded} -> ${found.version}`);
  }
}
