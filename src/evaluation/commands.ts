// The evaluation module's commands, for src/cli/ (see index.ts for the module's other door).
import type { BenchOptions } from "./bench/args.js";

export { addBenchOptions, BENCH_DESCRIPTION, benchOptionsFrom } from "./bench/args.js";
export { addImportBeirCommand, importCommand } from "./bench/import-command.js";

// The bench's body loads when it runs: its module graph (corpora, load generators, the app it
// measures) stays out of every other command's start-up.

/** `quarry bench`: the exit code */
export async function benchCommand(o: BenchOptions, command: string): Promise<number> {
  return (await import("./bench/run.js")).benchCommand(o, command);
}

/** `quarry bench --scale N ...`, which has options of its own: the exit code */
export async function scaleCommand(argv: string[]): Promise<number> {
  return (await import("./bench/scale.js")).scaleCommand(argv);
}
