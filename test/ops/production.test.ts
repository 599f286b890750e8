// Issue 14, production start and container: the Dockerfile is linted and has the shape the issue
// asks for (multi-stage, non-root, optional Chromium, volume, HEALTHCHECK); its build step and its
// CMD are then run here the way the image runs them (same commands, as an unprivileged user, with
// the image's environment), its HEALTHCHECK command passes against that process, and SIGTERM ends
// it within 10 s with no process left behind.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validate } from "dockerfile-utils";
import { start, type Running } from "./cli-helpers.js";

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

/** Dockerfile instructions with continuation lines joined, numbered by build stage. */
function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, " ").split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
  let stage = -1;
  return joined.map((l) => {
    const [, keyword, args] = /^\s*(\w+)\s+(.*)$/.exec(l)!;
    if (keyword.toUpperCase() === "FROM") stage++;
    return { keyword: keyword.toUpperCase(), args: args.trim(), stage };
  });
}

const DOCKERFILE = fs.readFileSync("Dockerfile", "utf8");
const ALL = instructions(DOCKERFILE);
const lastStage = Math.max(...ALL.map((i) => i.stage));
const final = ALL.filter((i) => i.stage === lastStage);
const execForm = (i: Instruction | undefined) => JSON.parse(i!.args.replace(/^CMD\s+/, "")) as string[];

/** Every process below `pid` (children, grandchildren, ...). */
function descendants(pid: number): number[] {
  const out = spawnSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" }).stdout;
  const rows = out.trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of rows) if (pp === p) (found.push(c), walk(c));
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("Dockerfile", () => {
  it("passes the linter", () => {
    const problems = validate(DOCKERFILE).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
    expect(problems).toEqual([]);
  });

  it("is multi-stage, runs as a non-root user, has optional Chromium, a data volume, a HEALTHCHECK and an exec-form node CMD", () => {
    expect(lastStage).toBeGreaterThanOrEqual(1);
    const user = final.filter((i) => i.keyword === "USER").pop();
    expect(user?.args).toBeDefined();
    expect(["root", "0"]).not.toContain(user!.args.split(":")[0]);
    expect(final.some((i) => i.keyword === "ARG" && /^WITH_CHROMIUM=false$/.test(i.args))).toBe(true);
    expect(final.some((i) => i.keyword === "RUN" && /WITH_CHROMIUM.*apt-get install.*chromium/.test(i.args))).toBe(true);
    expect(final.find((i) => i.keyword === "VOLUME")?.args).toBe('["/data"]');
    expect(final.find((i) => i.keyword === "HEALTHCHECK")?.args).toMatch(/CMD \["node", "-e", .*\/livez/);
    expect(execForm(final.find((i) => i.keyword === "CMD"))).toEqual(["node", "dist/cli.js", "serve"]);
    // the runtime stage gets no compiler, no TypeScript sources and no dev dependencies
    expect(final.some((i) => i.keyword === "COPY" && /\bsrc\b/.test(i.args))).toBe(false);
    expect(ALL.some((i) => i.keyword === "RUN" && /npm prune --omit=dev/.test(i.args))).toBe(true);
  });
});

describe("the image's build and start commands, run here", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-prod-"));
  let server: Running | undefined;
  afterAll(async () => {
    if (server?.child.exitCode === null) await server.stop("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  beforeAll(() => {
    // the build stage's command (npm run build: tsc to dist/ plus the SQL migrations)
    const build = ALL.find((i) => i.keyword === "RUN" && /npm run build/.test(i.args))!;
    expect(build.args).toMatch(/^npm run build\b/);
    execFileSync("npm", ["run", "build"], { stdio: "pipe" });
  }, 600_000);

  it("serves as an unprivileged user with the image's environment, passes its HEALTHCHECK, and exits on SIGTERM within 10 s with no orphan", async () => {
    const env: Record<string, string> = {};
    for (const i of final.filter((x) => x.keyword === "ENV")) {
      for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) env[m[1]] = m[2];
    }
    expect(env).toMatchObject({ NODE_ENV: "production", DATA_DIR: "/data", HOST: "0.0.0.0" });
    // here: loopback, a free port, a temporary directory for the volume, no model to load
    Object.assign(env, { HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir, EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false" });
    const cmd = execForm(final.find((i) => i.keyword === "CMD"));
    // the image's USER: an unprivileged account (when this test runs as root, drop to nobody)
    const asUser = process.getuid?.() === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    if (asUser.length) fs.chownSync(dataDir, 65534, 65534);
    server = await start([], env, /serving at/, { command: [...asUser, ...cmd], timeoutMs: 120_000 });
    const port = new URL(server.url!).port;
    expect(server.output()).toMatch(/workers on, platform key unset, mail via outbox .*JavaScript rendering (on|off), model .*data /);

    const health = final.find((i) => i.keyword === "HEALTHCHECK")!;
    const check = JSON.parse(health.args.replace(/^.*?CMD\s+/, "")) as string[];
    const probe = spawnSync(check[0] === "node" ? process.execPath : check[0], check.slice(1), { env: { ...process.env, PORT: port }, timeout: 10_000 });
    expect(probe.status).toBe(0);

    // the node process is the one listening: no npm or tsx wrapper between it and the signal
    const nodePid = asUser.length ? descendants(server.child.pid!)[0] ?? server.child.pid! : server.child.pid!;
    expect(fs.readFileSync(`/proc/${nodePid}/cmdline`, "utf8").split("\0").slice(1, 3)).toEqual(["dist/cli.js", "serve"]);
    const before = [server.child.pid!, ...descendants(server.child.pid!)];
    const { code, ms } = await server.stop("SIGTERM");
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(server.output()).toMatch(/Quarry stopped: 0 jobs left queued/);
    await new Promise((r) => setTimeout(r, 200));
    expect(before.filter(alive)).toEqual([]);
  }, 180_000);
});
