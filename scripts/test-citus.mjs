#!/usr/bin/env node
// npm run test:citus: the PostgreSQL store against a real Citus cluster. Installs Citus from the
// vendored source when the local PostgreSQL 15 lacks it (scripts/citus/install.mjs), starts a
// coordinator and two workers on loopback ports (scripts/citus/cluster.mjs), and runs the store
// conformance suites, the Citus-specific checks (placement, upgrades of a distributed schema,
// one-shard-group routing, a tenant move under search), the HTTP suites of the newest queries on
// the PostgreSQL store (vitest.citus.config.ts; CITUS_PG_SUITES=all: every pg suite) and the
// 2 API + 2 worker scale-out test with TEST_PG_URL at the coordinator.
// The cluster is torn down at the end, also on failure or Ctrl-C. Skips, with the reason printed,
// where Citus can be neither found nor built (a clone without ../shared/vendor, no root).
// Arguments go to vitest (file names narrow the suites).
import { spawn } from "node:child_process";
import { ensureCitus } from "./citus/install.mjs";
import { startCluster } from "./citus/cluster.mjs";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

const reason = ensureCitus(PG_BIN);
if (reason) {
  console.log(`test:citus skipped: ${reason}`);
  process.exit(0);
}

const args = process.argv.slice(2);
const cluster = await startCluster({ pgBin: PG_BIN });
let child = null;
const stop = (code) => {
  cluster.stop();
  process.exit(code);
};
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => (child?.kill(sig), stop(130)));
try {
  const vitest = (extra) => {
    child = spawn("npx", ["vitest", "run", "-c", "vitest.citus.config.ts", ...extra, ...args], {
      stdio: "inherit",
      env: {
        ...process.env,
        TEST_PG_URL: cluster.url,
        TEST_CITUS_WORKERS: cluster.workers.map((w) => `127.0.0.1:${w.port}`).join(","),
      },
    });
    return new Promise((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  };
  // vitest.citus.config.ts lists the suites; files named on the command line narrow them. By
  // default the 2 API + 2 worker test runs last, alone: its four processes start (and migrate the
  // cluster) within fixed waits that the other suites' load would eat into.
  const TWO_BY_TWO = "test/scaleout/two-by-two.test.ts";
  const named = args.some((a) => !a.startsWith("-"));
  let code = await vitest(named ? [] : ["--exclude", TWO_BY_TWO]);
  if (!named && code === 0) code = await vitest([TWO_BY_TWO]);
  else if (!named) console.log(`test:citus: ${TWO_BY_TWO} not run: the suites before it failed`);
  stop(code);
} catch (err) {
  console.error(err);
  stop(1);
}
