// npm run model:data -- [--out DIR] [--only id,id] [--docs DIR]: rebuilds the training pairs from
// the installed Debian and npm packages (src/model/mining/sources.ts) into DIR (default
// data/model), and the record of what they came from into model/DATA.md and model/data-packages.tsv.
import path from "node:path";
import { parseArgs } from "node:util";
import { minePairs } from "./mining/mine.js";
import { writeDataDocs } from "./mining/data-docs.js";
import { MODEL_DIR } from "./paths.js";

const { values } = parseArgs({
  options: {
    out: { type: "string", default: path.join("data", "model") },
    only: { type: "string" },
    docs: { type: "string", default: MODEL_DIR },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write(
    "Usage: npm run model:data -- [--out DIR] [--only source,source] [--docs DIR]\n" +
      "Mines training pairs from installed packages into DIR/pairs.jsonl and DIR/manifest.json,\n" +
      "and writes DATA.md and data-packages.tsv (the sources, versions and licences) into --docs.\n",
  );
  process.exit(0);
}
const t0 = Date.now();
const manifest = await minePairs(values.out, values.only?.split(","));
if (!values.only) writeDataDocs(values.docs, manifest);
for (const s of manifest.sources) process.stderr.write(`${s.id.padEnd(20)} ${String(s.files).padStart(6)} files ${String(s.pairs).padStart(8)} pairs ${s.packages.length} packages${s.errors ? `, ${s.errors} unreadable` : ""}\n`);
process.stderr.write(`${manifest.pairs} pairs in ${((Date.now() - t0) / 1000).toFixed(0)} s -> ${path.join(values.out, "pairs.jsonl")} (sha256 ${manifest.sha256.slice(0, 12)})\n`);
