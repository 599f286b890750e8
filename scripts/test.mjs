#!/usr/bin/env node
// npm test: the type checks (server and tests, then the console) and the whole vitest run with the
// PostgreSQL projects (TEST_PG=1, vitest.config.ts), side by side. The suites leave about a quarter
// of the two cores idle while they wait on processes, crawls and timers, which the checks fill, so
// the whole takes the vitest run's time instead of 20 s more. Any failure fails the command; each
// step's output is printed as it comes (the checks print nothing when clean).
import { spawn } from "node:child_process";
import path from "node:path";

const run = (name, cmd, args, env = {}) =>
  new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
    child.on("exit", (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0) }));
  });

// TypeScript 7's native compiler (package typescript-native), one thread: it checks both projects on
// a third of the CPU that TypeScript 5's tsc takes (docs/decisions.md "Type checks on TypeScript 7")
const tsc = (...args) => [process.execPath, ["node_modules/typescript-native/bin/tsc", "--singleThreaded", ...args]];
const typecheck = run("tsc", ...tsc("--noEmit")).then(async (r) => (r.code === 0 ? run("tsc -p console", ...tsc("-p", "console")) : r));
// Node's on-disk compile cache for every process of the run: the 28 vitest workers and the servers and
// CLIs the suites start load the same modules, and each skips compiling them again (0.08-0.1 CPU-s a process)
const compileCache = process.env.NODE_COMPILE_CACHE ?? path.resolve("node_modules/.cache/node-compile-cache");
const results = await Promise.all([typecheck, run("vitest", "npx", ["vitest", "run", ...process.argv.slice(2)], { TEST_PG: "1", NODE_COMPILE_CACHE: compileCache })]);
const failed = results.filter((r) => r.code !== 0);
for (const f of failed) console.error(`npm test: ${f.name} failed (exit ${f.code})`);
process.exit(failed.length ? 1 : 0);
