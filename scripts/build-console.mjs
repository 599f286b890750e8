// Builds the web console (console/ -> console/dist/) with Vite.
//   node scripts/build-console.mjs            build now (npm run build:console)
//   node scripts/build-console.mjs --if-needed build only when console/dist is missing or older than
//                                              console/ sources (npm install's postinstall, npm start's prestart)
// Without console/ sources (an installed package, a Docker stage before they are copied) there is
// nothing to build and it exits quietly; the server then serves whatever build it has, or a page
// that names `npm run build:console`.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const consoleDir = path.join(root, "console");
const built = path.join(consoleDir, "dist", "index.html");
const ifNeeded = process.argv.includes("--if-needed");

function newestSource(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "dist" || e.name === "node_modules") continue;
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

if (!fs.existsSync(path.join(consoleDir, "vite.config.ts"))) {
  if (!ifNeeded) console.error("build-console: console/ sources are not here; nothing to build.");
  process.exit(ifNeeded ? 0 : 1);
}
if (ifNeeded && fs.existsSync(built) && fs.statSync(built).mtimeMs >= newestSource(consoleDir)) process.exit(0);

let vite;
try {
  vite = await import("vite");
} catch {
  console.error("build-console: vite is not installed; run `npm install`, then `npm run build:console`.");
  process.exit(ifNeeded ? 0 : 1);
}
const started = Date.now();
await vite.build({ configFile: path.join(consoleDir, "vite.config.ts"), logLevel: "warn" });
console.log(`build-console: console/dist built in ${((Date.now() - started) / 1000).toFixed(1)} s (served at / by npm start)`);
