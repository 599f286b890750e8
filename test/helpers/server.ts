// Starts a real Quarry server on a random loopback port with a fresh DATA_DIR, for tests that talk
// to it over real HTTP.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../src/config.js";
import { createRuntime, type Runtime } from "../../src/runtime.js";
import { buildApp, type App } from "../../src/http/app.js";

export const PLATFORM_KEY = "test-platform-key-0123456789";

export interface TestServer {
  url: string;
  rt: Runtime;
  app: App;
  dataDir: string;
  /** fetch against the server; `key` sets the bearer, `json` the body */
  call(method: string, path: string, opts?: CallOptions): Promise<{ status: number; body: any; headers: Headers }>;
  /** a new tenant through the platform key; returns its admin key secret */
  tenant(name?: string): Promise<{ id: string; slug: string; adminKey: string }>;
  close(): Promise<void>;
}

export interface CallOptions {
  key?: string | null;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  cookie?: string;
}

/**
 * Settings for a server that needs no embedding model: an ONNX profile whose files are absent
 * starts degraded at once, so the server answers lexically without loading USE lite.
 */
export function noModelEnv(): Record<string, string> {
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-no-models-"));
  return { EMBEDDING_PROFILE: "bge-small-en-v1.5", MODELS_DIR: modelsDir, ALLOW_MODEL_DOWNLOAD: "false" };
}

export async function startServer(env: Record<string, string> = {}, opts: { dataDir?: string } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "quarry-test-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: "0",
    PLATFORM_API_KEY: PLATFORM_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    ...env,
  });
  const rt = await createRuntime(config, { log: pino({ level: config.logLevel }) });
  const app = await buildApp(rt);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const url = `http://127.0.0.1:${port}`;

  const call: TestServer["call"] = async (method, p, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.cookie) headers.cookie = o.cookie;
    let body = o.body;
    if (o.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(o.json);
    }
    const res = await fetch(url + p, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  let n = 0;
  return {
    url,
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
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
