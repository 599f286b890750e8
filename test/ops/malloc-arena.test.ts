// The `quarry` command runs with one glibc malloc arena (src/cli/malloc-arena.ts): it runs itself
// again at start with MALLOC_ARENA_MAX=1, in the same process, keeps an operator's own value, and
// does not pass the setting on to the programs it starts. What glibc was started with is read from
// /proc/<pid>/environ, the environment the process image began with.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const startedWith = (pid: number) => fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");

describe.skipIf(process.platform !== "linux" || typeof process.execve !== "function")("one malloc arena", () => {
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.kill9();
  });

  it("serves from the process that was started, run again with MALLOC_ARENA_MAX=1", async () => {
    const s = await startServerProcess(fs.mkdtempSync(path.join(os.tmpdir(), "quarry-arena-")), { EMBEDDING_PROFILE: "quarry-static" });
    servers.push(s);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    expect(startedWith(s.child.pid!)).toContain("MALLOC_ARENA_MAX=1");
  }, 120_000);

  it("keeps the operator's own MALLOC_ARENA_MAX and does not run again", async () => {
    const s = await startServerProcess(fs.mkdtempSync(path.join(os.tmpdir(), "quarry-arena-")), { EMBEDDING_PROFILE: "quarry-static", MALLOC_ARENA_MAX: "4" });
    servers.push(s);
    const env = startedWith(s.child.pid!);
    expect(env).toContain("MALLOC_ARENA_MAX=4");
    expect(env.filter((e) => e.startsWith("QUARRY_MALLOC_ARENA_SET="))).toEqual([]);
  }, 120_000);

  it("leaves the variable out of what the programs it starts inherit", () => {
    const script = [
      `import { execFileSync } from "node:child_process";`,
      `import fs from "node:fs";`,
      `import { useOneMallocArena } from ${JSON.stringify(path.join(ROOT, "src/cli/malloc-arena.ts"))};`,
      `useOneMallocArena();`,
      `const child = execFileSync("sh", ["-c", "echo \${MALLOC_ARENA_MAX:-unset} \${QUARRY_MALLOC_ARENA_SET:-unset}"], { encoding: "utf8" }).trim();`,
      `const startedWith = fs.readFileSync("/proc/self/environ", "utf8").split("\\0");`,
      `console.log(JSON.stringify({ child, arena: startedWith.includes("MALLOC_ARENA_MAX=1") }));`,
    ].join("\n");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "quarry-arena-")), "probe.mts");
    fs.writeFileSync(file, script);
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    const r = spawnSync(process.execPath, ["--import", "tsx", file], { cwd: ROOT, env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim()) as { child: string; arena: boolean };
    // it did run itself again with the setting, and its child saw neither variable
    expect(out).toEqual({ child: "unset unset", arena: true });
  });
});
