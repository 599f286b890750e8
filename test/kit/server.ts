// Starts a real Quarry app (runtime, store, queue) on a fresh DATA_DIR. With `listen: false` the
// tests reach it through Fastify's inject() and no socket is opened; otherwise it listens on a
// random loopback port for tests that need real HTTP (crawls, SSE, MCP clients, raw requests).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../src/config.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createTestDatabase, httpDatabasePrefix, type TestDatabase } from "../helpers/pg.js";
import { fetchCaller, injectCaller, type Call, type CallOptions } from "./call.js";
import { dropPrefix, REDIS_URL, testPrefix } from "../jobs/redis.js";

export const PLATFORM_KEY = "test-platform-key-0123456789";

/**
 * The embedding profile of test servers (and, through vitest.config.ts, of the processes tests
 * spawn): Quarry's static model loads in milliseconds and embeds on the calling thread, where the
 * default USE lite starts worker threads and embeds a few chunks a second. The suites that are
 * about USE lite, or about the out-of-the-box default, name their profile themselves.
 */
export const TEST_EMBEDDING_PROFILE = process.env.EMBEDDING_PROFILE ?? "quarry-static";

export type { CallOptions };

export interface TestServer {
  /** the loopback URL; throws for a server started with `listen: false` */
  url: string;
  rt: Runtime;
  app: App;
  dataDir: string;
  /** a request to the server (inject() or fetch); `key` sets the bearer, `json` the body */
  call: Call;
  /** a new tenant through the platform key; returns its admin key secret */
  tenant(name?: string): Promise<{ id: string; slug: string; adminKey: string }>;
  close(): Promise<void>;
}

/**
 * Settings for a server that needs no embedding model: an ONNX profile whose files are absent
 * starts degraded at once, so the server answers lexically without loading USE lite.
 */
export function noModelEnv(): Record<string, string> {
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-no-models-"));
  return { EMBEDDING_PROFILE: "bge-small-en-v1.5", MODELS_DIR: modelsDir, ALLOW_MODEL_DOWNLOAD: "false" };
}

// TEST_STORE=postgres (npm run test:pg) runs the HTTP suites on the scale-out store: each DATA_DIR
// gets its own PostgreSQL database, so a restart on the same DATA_DIR sees the same data. With
// TEST_QUEUE=redis as well, its jobs run on BullMQ under a Redis key prefix of its own.
const databases = new Map<string, TestDatabase>();
const queuePrefixes = new Map<string, string>();

async function postgresFor(dataDir: string, env: Record<string, string>): Promise<Record<string, string>> {
  if (process.env.TEST_STORE !== "postgres" || env.DATABASE_URL) return {};
  let db = databases.get(dataDir);
  if (!db) databases.set(dataDir, (db = await createTestDatabase(httpDatabasePrefix(), { migrated: true })));
  if (process.env.TEST_QUEUE !== "redis" || env.REDIS_URL) return { DATABASE_URL: db.url };
  let prefix = queuePrefixes.get(dataDir);
  if (!prefix) queuePrefixes.set(dataDir, (prefix = testPrefix()));
  return { DATABASE_URL: db.url, REDIS_URL, QUEUE_PREFIX: prefix };
}

/** Whether a DATA_DIR's test servers keep their jobs in the database (false: BullMQ in Redis). */
export function jobsInDatabase(dataDir: string): boolean {
  return !queuePrefixes.has(dataDir);
}

/** The PostgreSQL database of a DATA_DIR's test servers under TEST_STORE=postgres, else null (its SQLite file). */
export function databaseUrlOf(dataDir: string): string | null {
  return databases.get(dataDir)?.url ?? null;
}

export interface StartOptions {
  dataDir?: string;
  /** listen on this port (default: any free one), e.g. so PUBLIC_URL can name it */
  port?: number;
  /** the built web console to serve (default: console/dist) */
  consoleDir?: string;
  /** open a loopback socket (default true here; useServer defaults to false) */
  listen?: boolean;
}

export async function startServer(env: Record<string, string> = {}, opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "quarry-test-"));
  const config = loadConfig({
    ...(await postgresFor(dataDir, env)),
    DATA_DIR: dataDir,
    PORT: "0",
    PLATFORM_API_KEY: PLATFORM_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    EMBEDDING_PROFILE: TEST_EMBEDDING_PROFILE,
    ...env,
  });
  const rt = await createRuntime(config, { log: pino({ level: config.logLevel }) });
  const app = await buildApp(rt, { consoleDir: opts.consoleDir });
  let url = "";
  let call: Call;
  if (opts.listen === false) {
    await app.ready();
    call = injectCaller(app);
  } else {
    await app.listen({ port: opts.port ?? 0, host: "127.0.0.1" });
    const addr = app.server.address();
    url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
    call = fetchCaller(url);
  }

  let n = 0;
  return {
    get url() {
      if (!url) throw new Error("this test server has no socket: start it with { listen: true } to use its URL");
      return url;
    },
    rt,
    app,
    dataDir,
    call,
    async tenant(name) {
      const r = await call("POST", "/tenants", { key: PLATFORM_KEY, json: { name: name ?? `Tenant ${++n} ${Date.now()}` } });
      if (r.status !== 201) throw new Error(`tenant creation failed: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: r.body.tenant.id, slug: r.body.tenant.slug, adminKey: r.body.admin_key.key };
    },
    async close() {
      await app.close();
      await rt.close();
      if (opts.dataDir) return; // the caller's directory (and its database) may be opened again
      fs.rmSync(dataDir, { recursive: true, force: true });
      await databases.get(dataDir)?.drop();
      databases.delete(dataDir);
      const prefix = queuePrefixes.get(dataDir);
      if (prefix) await dropPrefix(prefix);
      queuePrefixes.delete(dataDir);
    },
  };
}
