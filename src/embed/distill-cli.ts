// `npm run distill`: builds the static token-vector table of the use-lite-static profile from the
// installed default model into MODELS_DIR/static/ (offline, a few seconds), with progress on
// stderr. A server with that profile active does the same at first start; this lets an operator
// do it at install time instead (e.g. in a container build). `--force` rebuilds a valid table.
import { loadConfig } from "../config.js";
import { buildStaticTable, readStaticTable, STATIC_DIMENSION, staticTablePath } from "./static-table.js";

async function main(argv: string[]): Promise<number> {
  const force = argv.includes("--force");
  const file = staticTablePath(loadConfig().modelsDir);
  const existing = readStaticTable(file, STATIC_DIMENSION);
  if (existing.table && !force) {
    process.stderr.write(`${file} is up to date (built ${existing.table.header.built_at}); --force rebuilds it.\n`);
    return 0;
  }
  process.stderr.write(`building static token vectors into ${file}${existing.table ? "" : ` (${existing.reason})`}\n`);
  let lastPct = -1;
  const header = await buildStaticTable(file, (done, total) => {
    const pct = Math.floor((100 * done) / total);
    if (pct >= lastPct + 10 || done === total) {
      lastPct = pct;
      process.stderr.write(`  ${pct}% (${done} of ${total} pieces)\n`);
    }
  });
  process.stderr.write(`done in ${(header.build_ms / 1000).toFixed(1)} s: ${header.pieces} pieces x ${header.dimension}, sha256 ${header.payload_sha256.slice(0, 16)}...\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`distill failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
