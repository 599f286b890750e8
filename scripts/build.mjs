// npm run build: compile src/ to dist/ with tsc, copy the files tsc does not (SQL migrations) and
// build the web console,
// so `node dist/cli.js serve` runs without tsx. dist/ is rebuilt from scratch each time.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(root, "tsconfig.build.json")], { stdio: "inherit" });
const assets = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return assets(p);
    return e.name.endsWith(".sql") ? [p] : [];
  });
for (const file of assets(path.join(root, "src"))) {
  const target = path.join(dist, path.relative(path.join(root, "src"), file));
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(file, target);
}
// the web console (console/dist), served by the same process
execFileSync(process.execPath, [path.join(root, "scripts/build-console.mjs")], { stdio: "inherit" });
console.log(`built ${path.relative(root, dist)}/ and console/dist/ (node dist/cli.js serve)`);
