// The entry of a worker whose module is still TypeScript (tsx, vitest; see task-file.ts): registers
// tsx in the worker, then imports the module. For piscina it also hands over the module's default
// export (its task); a plain worker module (embed/use-worker.ts) just runs on import.
// `--import tsx` in the worker's execArgv is not enough on Node 20: its ESM hooks do not reach a
// worker (nodejs/node#47747), and the parsers' lazy `import("./pdf.js")` needs them to find pdf.ts.
// A compiled build does not use this file.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const task = await import(workerData.tsxEntry);
export default task.default;
