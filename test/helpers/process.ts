// Real `quarry` processes for tests that kill, restart or signal them: a server on a free port and a
// given DATA_DIR (startServerProcess), or any command (spawnQuarry) with a poll that shows their output.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { PLATFORM_KEY } from "../kit/server.js";
import { quarryCommand } from "./server-build.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** SIGKILL, resolved once the process is gone */
  kill9(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export async function startServerProcess(dataDir: string, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<ServerProcess> {
  const port = await freePort();
  const [node, cli] = quarryCommand();
  const child = spawn(node, [cli, "serve"], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PLATFORM_API_KEY: PLATFORM_KEY, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  running.push({ name: "server", child, output: () => out });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(`${url}/health`)).status < 500) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not listen within ${timeoutMs} ms: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    output: () => out,
    kill9: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** A `quarry` command run as its own process (the run's build, test/helpers/server-build.ts), with its output. */
export interface QuarryProcess {
  name: string;
  child: ChildProcess;
  output: () => string;
}

const running: QuarryProcess[] = [];

/** Starts `quarry <args>` with the platform key, JSON logs at info and `env`; killQuarries() ends it. */
export function spawnQuarry(name: string, args: string[], env: Record<string, string>): QuarryProcess {
  const [node, cli] = quarryCommand();
  const child = spawn(node, [cli, ...args], {
    cwd: ROOT,
    env: { ...process.env, PLATFORM_API_KEY: PLATFORM_KEY, LOG_LEVEL: "info", LOG_FORMAT: "json", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const p = { name, child, output: () => out };
  running.push(p);
  return p;
}

/** SIGKILLs every process spawnQuarry or startServerProcess started that is still running (a suite's afterAll). */
export function killQuarries(): void {
  for (const p of running.splice(0)) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
}

/** SIGTERMs the processes (default: all spawnQuarry started) and resolves once each has exited. */
export function stopQuarries(...procs: QuarryProcess[]): Promise<unknown> {
  return Promise.all((procs.length ? procs : running).map(({ child }) => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : (child.once("exit", r), child.kill("SIGTERM"))))));
}

/**
 * Polls `f` until it returns a value; past `ms` fails with `what` and the last output of every
 * process spawnQuarry started, which is where the reason usually is.
 */
export async function until<T>(f: () => Promise<T | null | false>, what: string, ms = 90_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${running.map((p) => `--- ${p.name}\n${p.output().slice(-1500)}`).join("\n")}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A JSON request to a server process with a bearer key; the body parsed (null when empty). */
export async function callProcess(p: { url: string }, method: string, route: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(p.url + route, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
