// Where piscina finds a task module that sits beside the caller, compiled or not.
//
// Compiled (dist/), the task is `<name>.js` and piscina imports it directly. From TypeScript
// sources (tsx, vitest) it is `<name>.ts`, which a worker can only import once tsx is registered
// in it, so piscina starts tsx-worker.mjs, which registers tsx and then imports the task.
export interface TaskFile {
  filename: string;
  workerData?: { tsxEntry: string };
}

/** `callerUrl` is the caller's import.meta.url; `name` the task module's name without extension. */
export function taskFile(callerUrl: string, name: string): TaskFile {
  if (!callerUrl.endsWith(".ts")) return { filename: new URL(`./${name}.js`, callerUrl).href };
  return {
    filename: new URL("./tsx-worker.mjs", import.meta.url).href,
    workerData: { tsxEntry: new URL(`./${name}.ts`, callerUrl).href },
  };
}
