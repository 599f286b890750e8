// OpenAI-compatible provider against a loopback server that speaks the /embeddings API and
// computes real embeddings with the default USE model.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtInProfiles,
  EmbedderUnavailableError,
  EmbeddingError,
  OpenAiEmbedder,
  UseLiteEmbedder,
  validateProfile,
  type EmbeddingProfile,
} from "../../src/embed/index.js";

const KEY = "sk-test-123";

interface Seen {
  auth: string | undefined;
  model: string;
  input: string[];
}

/** Per-test behaviour of the fake server. */
const server = {
  seen: [] as Seen[],
  /** answer these statuses first, one per request, before answering normally */
  failures: [] as number[],
  delayMs: 0,
  dimension: 512 as number | null,
};

let use: UseLiteEmbedder;
let httpServer: http.Server;
let baseUrl: string;

beforeAll(async () => {
  use = new UseLiteEmbedder(builtInProfiles()[0], { poolSize: 1, queryWorker: false });
  expect(await use.whenReady()).toBe(true);
  httpServer = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      // a slow answer can outlive the suite (the embedder closes under it): drop the connection
      answer(req, res, body).catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => httpServer.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/v1`;
}, 60_000);

afterAll(async () => {
  httpServer?.closeAllConnections();
  await new Promise((r) => httpServer?.close(r));
  await use?.close();
});

async function answer(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
  const send = (status: number, obj: unknown) => {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(obj));
  };
  if (req.method !== "POST" || req.url !== "/v1/embeddings") return send(404, { error: { message: "no such route" } });
  const parsed = JSON.parse(body) as { model: string; input: string[] };
  server.seen.push({ auth: req.headers.authorization, model: parsed.model, input: parsed.input });
  if (req.headers.authorization !== `Bearer ${KEY}`) return send(401, { error: { message: "Incorrect API key provided" } });
  const failure = server.failures.shift();
  if (failure) return send(failure, { error: { message: "upstream overloaded" } });
  if (server.delayMs) await new Promise((r) => setTimeout(r, server.delayMs));
  const vectors = await use.embedPassages(parsed.input);
  const data = vectors.map((v, index) => ({
    object: "embedding",
    index,
    embedding: server.dimension === 512 ? Array.from(v) : Array.from(v.slice(0, server.dimension ?? 0)),
  }));
  data.reverse(); // order by index is the client's job
  send(200, { object: "list", data, model: parsed.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
}

function profile(options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): EmbeddingProfile {
  return validateProfile({
    name: "remote-use",
    provider: "openai",
    model: "use-lite-remote",
    dimension: 512,
    max_input_tokens: 128,
    options: { base_url: baseUrl, api_key_env: "TEST_EMBED_KEY", batch_size: 3, timeout_ms: 5000, retry_base_ms: 10, ...options },
    ...extra,
  });
}

const env = { TEST_EMBED_KEY: KEY };
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

function reset() {
  server.seen = [];
  server.failures = [];
  server.delayMs = 0;
  server.dimension = 512;
}

describe("openai-compatible embedder", () => {
  it("probes the server, batches by batch_size, orders by index and matches local embeddings", async () => {
    reset();
    const e = new OpenAiEmbedder(profile(), { env });
    expect(e.status().state).toBe("loading");
    expect(await e.whenReady()).toBe(true);
    expect(e.status()).toEqual({ state: "ready", detail: null });
    const texts = ["alpha centauri", "how to bake bread", "password reset steps", "quarterly revenue", "cats", "dogs", "birds"];
    server.seen = [];
    const remote = await e.embedPassages(texts);
    expect(server.seen.map((s) => s.input.length)).toEqual([3, 3, 1]);
    expect(server.seen[0]).toMatchObject({ auth: `Bearer ${KEY}`, model: "use-lite-remote" });
    const local = await use.embedPassages(texts);
    remote.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(maxDiff(v, local[i])).toBeLessThan(1e-5);
    });
    await e.close();
  });

  it("applies prefixes", async () => {
    reset();
    const e = new OpenAiEmbedder(profile({}, { query_prefix: "query: ", passage_prefix: "passage: " }), { env, probe: false });
    await e.embedQuery("where is my order");
    await e.embedPassages(["the order shipped"]);
    expect(server.seen.map((s) => s.input)).toEqual([["query: where is my order"], ["passage: the order shipped"]]);
  });

  it("retries a 500 and a 429, then succeeds", async () => {
    reset();
    server.failures = [500, 429];
    const e = new OpenAiEmbedder(profile(), { env, probe: false });
    const v = await e.embedQuery("retry me");
    expect(v.length).toBe(512);
    expect(server.seen).toHaveLength(3);
    expect(e.status().state).toBe("ready");
  });

  it("gives up after max_retries with a clear, retryable error and reports unavailable until a call succeeds", async () => {
    reset();
    server.failures = [503, 503, 503];
    const e = new OpenAiEmbedder(profile({ max_retries: 2 }), { env, probe: false });
    const err = await e.embedQuery("x").catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as EmbeddingError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/answered 503: upstream overloaded\. \(gave up after 3 attempts\)/);
    expect(e.status().state).toBe("unavailable");
    await e.embedQuery("x"); // the server is fine again
    expect(e.status().state).toBe("ready");
  });

  it("re-probes an unreachable server on its own and turns ready when it answers", async () => {
    reset();
    server.failures = [502, 502];
    const e = new OpenAiEmbedder(profile({ max_retries: 1 }), { env, reprobeMs: 100 });
    expect(await e.whenReady()).toBe(false);
    expect(e.status()).toMatchObject({ state: "unavailable", detail: expect.stringMatching(/answered 502/) });
    await expect.poll(() => e.status().state, { timeout: 3000 }).toBe("ready");
    await e.close();
  });

  it("times out a slow server", async () => {
    reset();
    server.delayMs = 1500;
    const e = new OpenAiEmbedder(profile({ timeout_ms: 200, max_retries: 0 }), { env, probe: false });
    const t0 = Date.now();
    await expect(e.embedQuery("slow")).rejects.toThrow(/did not answer within 200 ms/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("is unavailable when the API key variable is not set, without calling the server", async () => {
    reset();
    const e = new OpenAiEmbedder(profile(), { env: {} });
    expect(await e.whenReady()).toBe(false);
    expect(e.status().detail).toMatch(/environment variable TEST_EMBED_KEY, which is not set/);
    await expect(e.embedQuery("x")).rejects.toBeInstanceOf(EmbedderUnavailableError);
    expect(server.seen).toHaveLength(0);
  });

  it("is unavailable on a rejected key (401), naming the variable", async () => {
    reset();
    const e = new OpenAiEmbedder(profile(), { env: { TEST_EMBED_KEY: "wrong" } });
    expect(await e.whenReady()).toBe(false);
    expect(e.status().detail).toMatch(/answered 401: Incorrect API key provided\. Check the API key in TEST_EMBED_KEY/);
    expect(server.seen).toHaveLength(1); // 401 is not retried
  });

  it("is unavailable when the server's dimension differs from the profile", async () => {
    reset();
    server.dimension = 384;
    const e = new OpenAiEmbedder(profile(), { env });
    expect(await e.whenReady()).toBe(false);
    expect(e.status().detail).toMatch(/returned 384-dimensional embeddings .* declares dimension 512/);
  });

  it("reports an unreachable server with the address", async () => {
    reset();
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const e = new OpenAiEmbedder(profile({ base_url: `http://127.0.0.1:${port}/v1`, max_retries: 1 }), { env });
    expect(await e.whenReady()).toBe(false);
    expect(e.status().detail).toMatch(new RegExp(`Cannot reach the embedding server at http://127.0.0.1:${port}/v1/embeddings: ECONNREFUSED`));
  });
});
