// The compiled server that test suites run as separate processes (startServerProcess, spawnQuarry,
// the CLI suites): built once per test run by this module's global setup, not transpiled again by
// tsx in every process. A server process from the build starts on about 60% of the CPU that
// `node --import tsx src/cli.ts` takes (2.9 against 4.9 s to ready; the CLI suite 34 against 60
// CPU-seconds), and most of npm test's time on two cores is such processes.
//
// The build sits directly under the repository root, as dist/ does (modules find the model, the
// console and package.json by paths relative to their own), and is named for the run
// (QUARRY_TEST_RUN, vitest.config.ts), so two runs, or `npm run build` during one, never replace
// the files another run's processes are loading. It is made at the start of the run: a process a
// suite starts runs the sources as they were then (under `vitest --watch`, restart the run after
// editing src/). bin/quarry.js, the command from sources, keeps its own tests (test/ops/cli.test.ts).
import fs from "node:fs";
import path from "node:path";
import { buildServer } from "../../scripts/build-server.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PREFIX = ".test-build-";

/** The run's build directory; QUARRY_TEST_RUN is set by vitest.config.ts before any setup or worker. */
export function serverBuildDir(): string {
  const run = process.env.QUARRY_TEST_RUN;
  if (!run) throw new Error("QUARRY_TEST_RUN is not set: run the suites through vitest.config.ts (npm test)");
  return path.join(ROOT, PREFIX + run);
}

/** `node <build>/cli.js`: the `quarry` command as compiled for this run. */
export function quarryCommand(): [node: string, cli: string] {
  const cli = path.join(serverBuildDir(), "cli.js");
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: the test run's global setup (test/helpers/server-build.ts) builds it`);
  return [process.execPath, cli];
}

const built = Symbol.for("quarry.testServerBuild");

/**
 * Vitest runs a root global setup once for each project that extends the root config, in one
 * process, and every teardown at the end of the run: so the build is made once (kept on
 * globalThis, as each project may import this module afresh) and removed once all are done.
 */
export function setup(): Promise<void> {
  const g = globalThis as { [built]?: Promise<void> };
  g[built] ??= (async () => {
    // builds a crashed run left behind (a day old), then this run's
    for (const e of fs.readdirSync(ROOT)) {
      const p = path.join(ROOT, e);
      if (e.startsWith(PREFIX) && Date.now() - fs.statSync(p).mtimeMs > 86_400_000) fs.rmSync(p, { recursive: true, force: true });
    }
    await buildServer(ROOT, serverBuildDir());
  })();
  return g[built];
}

export function teardown(): void {
  fs.rmSync(serverBuildDir(), { recursive: true, force: true });
}
