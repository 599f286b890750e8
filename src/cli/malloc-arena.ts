// One glibc malloc arena for the whole process, set before anything else is loaded.
//
// glibc gives each thread that allocates an arena of its own (up to 8 per core), and an arena
// keeps what is freed in it for that thread's later allocations. Each embedding worker thread
// parses and optimises its own onnxruntime session (a copy of the model graph, freed once the
// session holds the weights), so each kept tens of MB it never used again: the int8 embedder added
// 215-216 MB to the process, 146-147 MB with MALLOC_ARENA_MAX=1, at the same or better speed
// (`npm run bench:embed`, docs/decisions.md "One malloc arena"). glibc reads the variable when the
// process starts, so the command runs itself again at once with it set (process.execve: the same
// process id, so signals and supervisors see no difference). An operator's own MALLOC_ARENA_MAX,
// any value, is kept; elsewhere than Linux, or on a Node without process.execve, nothing changes.
// The variable is removed from the environment afterwards, so the programs Quarry starts
// (Chromium, tesseract) keep glibc's default.

import fs from "node:fs";

/** marks the process that this module started, so it neither runs itself again nor passes the setting on */
const MARK = "QUARRY_MALLOC_ARENA_SET";

export function useOneMallocArena(): void {
  if (process.env[MARK] === "1") {
    delete process.env[MARK];
    delete process.env.MALLOC_ARENA_MAX;
    return;
  }
  if (process.platform !== "linux" || process.env.MALLOC_ARENA_MAX !== undefined) return;
  if (typeof process.execve !== "function" || !executable(process.execPath)) return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env,
      MALLOC_ARENA_MAX: "1",
      [MARK]: "1",
    });
  } catch {
    // Node versions that throw on a failed execve(2) leave this process as it was: it runs on with
    // glibc's default arenas (older ones abort instead, hence the check above)
  }
}

/**
 * Whether this process may execute its own binary again. Not always so: a process started by root
 * that then dropped to another user (setpriv, the container test in test/ops/production.test.ts)
 * runs a binary under /root that it cannot reach itself, and this Node aborts on a failed execve.
 */
function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
