// npm run build: transpile src/ to dist/ with esbuild (scripts/build-server.mjs) and build the web
// console, so `node dist/cli.js serve` runs without tsx. dist/ is rebuilt from scratch each time.
//
// Types are not checked here: `npm test` and CI run `tsc --noEmit` over the same files, and the
// build only needs JavaScript. esbuild emits it in about a second, where tsc's emit took half a
// minute of CPU.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildServer } from "./build-server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
await buildServer(root, dist);
// the web console (console/dist), served by the same process
execFileSync(process.execPath, [path.join(root, "scripts/build-console.mjs")], { stdio: "inherit" });
console.log(`built ${path.relative(root, dist)}/ and console/dist/ (node dist/cli.js serve)`);
