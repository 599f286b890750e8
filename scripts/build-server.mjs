// The server's JavaScript: src/ transpiled file by file with esbuild (no bundle: the output keeps
// src/'s layout, and native and optional dependencies load from node_modules as in development),
// plus the files a transpiler does not copy (SQL migrations). Used by `npm run build` (dist/) and by
// the test run's global setup (test/helpers/server-build.ts), whose processes start from a build.
//
// The output must be a directory directly under the repository root, as dist/ is: modules find
// the model, the console and package.json by relative paths that assume src/'s depth.
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";

/** Builds `root`/src into `outDir` (a child of `root`), replacing what was there. */
export async function buildServer(root, outDir) {
  if (path.dirname(path.resolve(outDir)) !== path.resolve(root)) throw new Error(`buildServer: ${outDir} must be a directory directly under ${root}`);
  const src = path.join(root, "src");
  fs.rmSync(outDir, { recursive: true, force: true });
  const all = files(src);
  await build({
    entryPoints: all.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
    outdir: outDir,
    outbase: src,
    format: "esm",
    platform: "node",
    target: "node24",
    sourcemap: true,
    logLevel: "warning",
  });
  for (const file of all.filter((f) => f.endsWith(".sql"))) {
    const target = path.join(outDir, path.relative(src, file));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(file, target);
  }
}

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}
