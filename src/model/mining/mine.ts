// Builds the training pair set from the installed packages (npm run model:data): every source's
// files -> pairs, exact duplicates dropped, each asking text kept at most MAX_PER_QUERY times (a
// heading such as "Examples" asks for nothing in particular), written as JSON lines with a
// manifest naming every package, its version and licence, and the output's SHA-256.
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { createProgress } from "../../terminal/progress.js";
import { DebianPackages, type PackageInfo } from "./debian.js";
import { filePairs } from "./read-source.js";
import { NPM_SOURCE, SOURCES, type SourceSpec } from "./sources.js";
import { HELD_OUT_PACKAGES, HELD_OUT_PATHS, heldOutPackage, heldOutPath } from "../../held-out-corpora.js";
import type { Pair } from "./sections.js";
import { PinCheck, type PinnedPackages, type PinReport } from "./pinned.js";

export const MAX_PER_QUERY = 8;

export interface SourceReport {
  id: string;
  description: string;
  format: string;
  files: number;
  pairs: number;
  errors: number;
  packages: PackageInfo[];
}

export interface DataManifest {
  format: 1;
  pairs: number;
  sha256: string;
  sources: SourceReport[];
  held_out: { packages: string[]; paths: string[] };
  /** with a package list (--packages): the listed packages this machine lacks or has at another version */
  pinned?: PinReport;
}

interface SourceFiles {
  spec: SourceSpec;
  /** file -> the package (or npm package) it came from */
  files: Map<string, PackageInfo>;
}

function debianFiles(spec: SourceSpec, deb: DebianPackages, pin?: PinCheck): SourceFiles {
  const files = new Map<string, PackageInfo>();
  const names = pin ? pin.names(spec.id) : spec.packages === "*" ? deb.names() : spec.packages;
  for (const name of names) {
    if (heldOutPackage(name)) continue;
    const info = deb.installed(name) ? deb.info(name) : undefined;
    pin?.check(spec.id, name, info);
    if (!info) continue;
    const list = deb.filesOf(name).filter((f) => spec.files.test(f) && !heldOutPath(f));
    if (list.length === 0) continue;
    for (const f of list) if (fs.existsSync(f) && fs.statSync(f).isFile()) files.set(f, info);
  }
  return { spec, files: new Map([...files].sort((a, b) => a[0].localeCompare(b[0]))) };
}

/** The READMEs of the npm packages installed beside this module (node_modules of the project). */
function npmFiles(pin?: PinCheck): SourceFiles {
  const listed = pin && new Set(pin.names(NPM_SOURCE.id));
  const require = createRequire(import.meta.url);
  const root = path.join(path.dirname(require.resolve("stemmer/package.json")), "..");
  const files = new Map<string, PackageInfo>();
  const dirs = fs.readdirSync(root).flatMap((d) => (d.startsWith("@") ? fs.readdirSync(path.join(root, d)).map((s) => `${d}/${s}`) : [d]));
  for (const d of dirs.sort()) {
    const dir = path.join(root, d);
    const pkgFile = path.join(dir, "package.json");
    if (!fs.existsSync(pkgFile)) continue;
    const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8")) as { name?: string; version?: string; license?: unknown };
    const name = `npm:${pkg.name ?? d}`;
    if (listed && !listed.delete(name)) continue;
    const licence = typeof pkg.license === "string" ? pkg.license : "";
    pin?.check(NPM_SOURCE.id, name, { name, version: pkg.version ?? "", licence });
    if (!licence || /UNLICENSED|SEE LICENSE/i.test(licence)) continue;
    const readme = fs.readdirSync(dir).find((f) => NPM_SOURCE.files.test(f));
    // the held-out path rule applies to READMEs too: one rule for every file is simpler to trust
    // than a judgement per package
    const file = readme ? path.join(dir, readme) : null;
    if (file && !heldOutPath(file)) files.set(file, { name, version: pkg.version ?? "", licence });
  }
  for (const name of listed ?? []) pin?.check(NPM_SOURCE.id, name, undefined);
  return { spec: NPM_SOURCE, files };
}

/** Keeps a pair unless it repeats one already kept or its query was asked too often. */
class PairFilter {
  private readonly seen = new Set<string>();
  private readonly perQuery = new Map<string, number>();

  keep(p: Pair): boolean {
    const q = p.query.toLowerCase().replace(/\s+/g, " ");
    const n = this.perQuery.get(q) ?? 0;
    if (n >= MAX_PER_QUERY) return false;
    const key = createHash("sha1").update(q).update("\0").update(p.passage).digest("base64");
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    this.perQuery.set(q, n + 1);
    return true;
  }
}

function mineSource(src: SourceFiles, filter: PairFilter, out: fs.WriteStream, hash: ReturnType<typeof createHash>): SourceReport {
  const report: SourceReport = { id: src.spec.id, description: src.spec.description, format: src.spec.format, files: 0, pairs: 0, errors: 0, packages: [] };
  const packages = new Map<string, PackageInfo>();
  const progress = createProgress(`model:data ${src.spec.id}`);
  let done = 0;
  for (const [file, pkg] of src.files) {
    progress.update(done++, src.files.size, `${report.pairs} pairs`);
    const { pairs, error } = filePairs(src.spec.format, file);
    if (error) report.errors++;
    report.files++;
    let kept = 0;
    for (const p of pairs) {
      if (!filter.keep(p)) continue;
      const line = `${JSON.stringify({ s: src.spec.id, k: p.kind, q: p.query, p: p.passage })}\n`;
      out.write(line);
      hash.update(line);
      kept++;
    }
    report.pairs += kept;
    if (kept > 0) packages.set(pkg.name, pkg);
  }
  progress.update(src.files.size, src.files.size, `${report.pairs} pairs`);
  progress.stop();
  report.packages = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
  return report;
}

export interface MineOptions {
  /** mine these sources alone */
  only?: string[];
  /** mine only the packages this list records for each source (pinned.ts) */
  pinned?: PinnedPackages;
  /** the dpkg database to read (default MODEL_DPKG_DIR or /var/lib/dpkg) */
  dpkgDir?: string;
}

/** Mines every source into `dir`/pairs.jsonl and `dir`/manifest.json; returns the manifest. */
export async function minePairs(dir: string, { only, pinned, dpkgDir }: MineOptions = {}): Promise<DataManifest> {
  fs.mkdirSync(dir, { recursive: true });
  const deb = new DebianPackages(dpkgDir);
  const file = path.join(dir, "pairs.jsonl");
  const out = fs.createWriteStream(`${file}.tmp`);
  const hash = createHash("sha256");
  const filter = new PairFilter();
  const pin = pinned && new PinCheck(pinned);
  const sources = [...SOURCES.map((s) => () => debianFiles(s, deb, pin)), () => npmFiles(pin)];
  const reports: SourceReport[] = [];
  for (const load of sources) {
    const src = load();
    if (only && !only.includes(src.spec.id)) continue;
    reports.push(mineSource(src, filter, out, hash));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  fs.renameSync(`${file}.tmp`, file);
  const manifest: DataManifest = {
    format: 1,
    pairs: reports.reduce((n, r) => n + r.pairs, 0),
    sha256: hash.digest("hex"),
    sources: reports,
    // the exclusion rules as applied (sources.ts), so the manifest cannot drift from the code
    held_out: { packages: HELD_OUT_PACKAGES.map(String), paths: HELD_OUT_PATHS.map(String) },
    ...(pin ? { pinned: pin.report } : {}),
  };
  fs.writeFileSync(path.join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
