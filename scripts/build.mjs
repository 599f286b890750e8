// npm run build: transpile src/ to dist/ with esbuild, copy the files a transpiler does not (SQL
// migrations) and build the web console, so `node dist/cli.js serve` runs without tsx. dist/ is
// rebuilt from scratch each time.
//
// Types are not checked here: `npm test` and CI run `tsc --noEmit` over the same files, and the
// build only needs JavaScript. esbuild emits it file by file (no bundle: dist/ keeps src/'s
// layout, and native and optional dependencies load from node_modules as in development) in about
// a second, where tsc's emit took half a minute of CPU.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const src = path.join(root, "src");
const dist = path.join(root, "dist");
fs.rmSync(dist, { recursive: true, force: true });

const files = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
const all = files(src);
await build({
  entryPoints: all.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
  outdir: dist,
  outbase: src,
  format: "esm",
  platform: "node",
  target: "node24",
  sourcemap: true,
  logLevel: "warning",
});
for (const file of all.filter((f) => f.endsWith(".sql"))) {
  const target = path.join(dist, path.relative(src, file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(file, target);
}
// the web console (console/dist), served by the same process
execFileSync(process.execPath, [path.join(root, "scripts/build-console.mjs")], { stdio: "inherit" });
console.log(`built ${path.relative(root, dist)}/ and console/dist/ (node dist/cli.js serve)`);
