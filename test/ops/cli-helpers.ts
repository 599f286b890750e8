// Runs the real `quarry` command as a child process, the way an operator does: compiled, as
// `node dist/cli.js` runs in production (the test run's build, ../helpers/server-build.ts), unless
// `opts.command` names another way in (cli.test.ts runs bin/quarry.js through npx).
import { spawn, type ChildProcess } from "node:child_process";
import { quarryCommand } from "../helpers/server-build.js";

/** Settings that keep a child Quarry light: no model to load, quiet logs. */
export const LIGHT = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false", LOG_LEVEL: "info", INGEST_WORKERS: "1", EMBED_WORKERS: "1" };

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const k of ["DATA_DIR", "PORT", "PLATFORM_API_KEY", "DEFAULT_PLAN", "DATABASE_URL", "LOG_FORMAT", "QUARRY_DEBUG"]) delete base[k];
  return { ...base, ...env };
}

export function run(args: string[], env: Record<string, string>, opts: { command?: string[]; timeoutMs?: number } = {}): Promise<RunResult> {
  const [cmd, ...pre] = opts.command ?? quarryCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [...pre, ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const t = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Running {
  child: ChildProcess;
  url: string | null;
  output(): string;
  /** SIGTERM, then resolves with the exit code and how long the exit took */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/** Starts a long-running command and waits for the log line matching `ready`. */
export async function start(args: string[], env: Record<string, string>, ready: RegExp, opts: { command?: string[]; timeoutMs?: number } = {}): Promise<Running> {
  const [cmd, ...pre] = opts.command ?? quarryCommand();
  const child = spawn(cmd, [...pre, ...args], { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const url = await new Promise<string | null>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`not ready within ${opts.timeoutMs ?? 90_000} ms:\n${out}`)), opts.timeoutMs ?? 90_000);
    const onData = (d: Buffer) => {
      out += d;
      if (ready.test(out)) {
        clearTimeout(t);
        resolve(/serving at (http:\/\/[\d.]+:\d+)/.exec(out)?.[1] ?? null);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    void exited.then((code) => reject(new Error(`exited with ${code} before it was ready:\n${out}`)));
  });
  return {
    child,
    url,
    output: () => out,
    async stop(signal = "SIGTERM") {
      const t0 = Date.now();
      child.kill(signal);
      const code = await exited;
      return { code, ms: Date.now() - t0 };
    },
  };
}

/** Exactly one line on stderr, and no stack trace in it. */
export function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("npm warn"));
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got:\n${stderr}`);
  if (/^\s+at /m.test(stderr)) throw new Error(`stack trace on stderr:\n${stderr}`);
  return lines[0];
}
