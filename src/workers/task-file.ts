// Where piscina finds a task module that sits beside the caller, compiled or not.
//
// Compiled (dist/), the task is `<name>.js` and piscina imports it directly. From TypeScript
// sources (tsx, vitest) it is `<name>.ts`, which a worker can only import once tsx is registered
// in it, so piscina starts tsx-worker.mjs, which registers tsx and then imports the task; unless
// QUARRY_COMPILED_WORKERS names a compiled copy of src/ (npm run build's layout), whose `<name>.js`
// it then starts. The test run sets it to the build it makes (test/helpers/server-build.ts): a
// parse worker, which loads every parser, starts on 0.35 CPU-s compiled against 1.2-1.6 through tsx.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface TaskFile {
  filename: string;
  workerData?: { tsxEntry: string };
}

/** `callerUrl` is the caller's import.meta.url; `name` the task module's name without extension. */
export function taskFile(callerUrl: string, name: string): TaskFile {
  if (!callerUrl.endsWith(".ts")) return { filename: new URL(`./${name}.js`, callerUrl).href };
  const compiled = compiledTwin(new URL(`./${name}.ts`, callerUrl));
  if (compiled) return { filename: compiled };
  return {
    filename: new URL("./tsx-worker.mjs", import.meta.url).href,
    workerData: { tsxEntry: new URL(`./${name}.ts`, callerUrl).href },
  };
}

/** The compiled `.js` of a module under src/ in QUARRY_COMPILED_WORKERS, or null when it is unset. */
function compiledTwin(source: URL): string | null {
  const dir = process.env.QUARRY_COMPILED_WORKERS;
  if (!dir) return null;
  const src = fileURLToPath(new URL("../", import.meta.url));
  const file = path.join(dir, path.relative(src, fileURLToPath(source)).replace(/\.ts$/, ".js"));
  if (!fs.existsSync(file)) throw new Error(`QUARRY_COMPILED_WORKERS=${dir} has no ${path.relative(dir, file)}: build it (npm run build's layout) or unset the variable`);
  return pathToFileURL(file).href;
}
