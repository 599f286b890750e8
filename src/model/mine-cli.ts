// npm run model:data -- [--out DIR] [--only id,id] [--docs DIR] [--packages TSV]: rebuilds the
// training pairs from the installed Debian and npm packages (src/model/mining/sources.ts) into DIR
// (default data/model), and the record of what they came from into model/DATA.md and
// model/data-packages.tsv. With --packages (a data-packages.tsv), only the packages it lists.
import path from "node:path";
import { parseArgs } from "node:util";
import { minePairs } from "./mining/mine.js";
import { readPinnedPackages, type PinnedPackages } from "./mining/pinned.js";
import { writeDataDocs } from "./mining/data-docs.js";
import { MODEL_DIR } from "./paths.js";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: path.join("data", "model") },
    only: { type: "string" },
    docs: { type: "string", default: MODEL_DIR },
    packages: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(
    "Usage: npm run model:data -- [--out DIR] [--only source,source] [--docs DIR] [--packages TSV]\n" +
      "Mines training pairs from installed packages into DIR/pairs.jsonl and DIR/manifest.json,\n" +
      "and writes DATA.md and data-packages.tsv (the sources, versions and licences) into --docs.\n" +
      "--packages model/data-packages.tsv mines only the packages that list records, to rebuild its pairs.\n",
  );
  process.exit(0);
}
const t0 = Date.now();
let pinned: PinnedPackages | undefined;
try {
  pinned = values.packages ? readPinnedPackages(values.packages) : undefined;
} catch (e) {
  process.stderr.write(`--packages: ${(e as Error).message}\n`);
  process.exit(2);
}
const manifest = await minePairs(values.out, { only: values.only?.split(","), pinned });
if (!values.only) writeDataDocs(values.docs, manifest);
for (const s of manifest.sources) process.stderr.write(`${s.id.padEnd(20)} ${String(s.files).padStart(6)} files ${String(s.pairs).padStart(8)} pairs ${s.packages.length} packages${s.errors ? `, ${s.errors} unreadable` : ""}\n`);
process.stderr.write(`${manifest.pairs} pairs in ${((Date.now() - t0) / 1000).toFixed(0)} s -> ${path.join(values.out, "pairs.jsonl")} (sha256 ${manifest.sha256.slice(0, 12)})\n`);
if (manifest.pinned) {
  const { missing, otherVersion } = manifest.pinned;
  if (missing.length + otherVersion.length === 0) process.stderr.write(`every package of ${values.packages} is installed at its recorded version\n`);
  const show = (what: string, list: string[]) =>
    list.length && process.stderr.write(`${list.length} listed packages ${what} (the pairs may differ from the recorded ones):\n  ${list.slice(0, 20).join("\n  ")}${list.length > 20 ? `\n  … and ${list.length - 20} more (manifest.json "pinned")` : ""}\n`);
  show("are not installed here", missing);
  const debian = missing.map((m) => m.split(" ")[1]!).filter((name) => !name.startsWith("npm:"));
  if (debian.length) process.stderr.write(`install them with: apt-get install --no-install-recommends ${[...new Set(debian)].join(" ")}\n`);
  show("are installed at another version", otherVersion);
}
