// The `quarry` command, loaded by src/cli.ts once the process is set up: parses the command line
// (program.ts) and turns any failure into one readable line.
import { CommanderError } from "commander";
import { buildProgram } from "./program.js";
import { describeError } from "../terminal/errors.js";

function fail(err: unknown): never {
  if (process.env.QUARRY_DEBUG) console.error(err);
  const { line, code } = describeError(err);
  process.stderr.write(`quarry: ${line}\n`);
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram({ done: (code) => process.exit(code) });
  if (argv.length === 0) {
    process.stdout.write(program.helpInformation());
    process.exit(0);
  }
  try {
    // the scale bench has options of its own (see `quarry bench --scale 1 --help`)
    if (argv[0] === "bench" && argv.includes("--scale")) {
      const { scaleCommand } = await import("../evaluation/commands.js");
      process.exit(await scaleCommand(argv.slice(1)));
    }
    await program.parseAsync(argv, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with code 0; usage errors were already printed as one line
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    fail(err);
  }
}

process.on("unhandledRejection", fail);
void main(process.argv.slice(2));
