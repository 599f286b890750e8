// Starts one of this folder's worker modules (use-worker, the use-lite pool's) in a worker thread.
// (The static table build is a piscina task instead: see ../workers/task-file.ts.)
//
// Compiled (.js) it is a plain worker. From TypeScript sources (tsx, vitest) the worker needs
// tsx's loader, but on Node 20 `execArgv: ["--import", "tsx"]` does not apply to a worker's entry
// module ("Unknown file extension .ts"), so a tiny bootstrap registers tsx through its API inside
// the worker and then imports the entry.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

export function startModuleWorker(name: string, workerData?: unknown): Worker {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const entry = new URL(`./${name}.ts`, here).href;
  const requireHere = createRequire(here);
  const tsxApi = new URL("./dist/esm/api/index.mjs", pathToFileURL(requireHere.resolve("tsx/package.json"))).href;
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
