// Search speed over real HTTP: the app listens on a loopback port in this process and is called
// with fetch and a search-scope API key, exactly as a client would. Queries are never repeated, so
// every hybrid request pays for its query embedding (the embedder caches repeated queries).
import type { FastifyInstance } from "fastify";
import type { Runtime } from "../../runtime.js";
import type { Principal } from "../../services/auth/auth.js";
import type { SearchRequest as SearchBody } from "../../services/search/search.js";
import { buildApp } from "../../http/app.js";
import { needs } from "../../http/route-config.js";
import { errors, ref } from "../../http/schemas/common.js";
import { SearchRequest, SearchResponse } from "../../http/schemas/search.js";
import { latencySummary, type LatencySummary } from "../ranking-metrics.js";

export interface LatencyResult extends LatencySummary {
  errors: number;
}

export interface QpsResult {
  clients: number;
  seconds: number;
  requests: number;
  errors: number;
  qps: number;
  latency: LatencySummary;
}

export interface SpeedResult {
  hybrid: LatencyResult;
  lexical: LatencyResult;
  qps_hybrid: QpsResult;
  qps_lexical: QpsResult;
  /** what the search answered with (hybrid unless the model was unavailable) */
  mode: string;
}

/**
 * Endless supply of query texts the embedder has not seen: the data set's queries that were not
 * evaluated, then all of them again with a counter appended (" 2", " 3", ...), which changes the
 * cache key and barely changes the query.
 */
export function freshQueries(all: string[], seen: Set<string>): () => string {
  const first = all.filter((q) => !seen.has(q));
  const base = all.length ? all : ["search"];
  let i = 0;
  return () => {
    const n = i++;
    if (n < first.length) return first[n];
    const m = n - first.length;
    return `${base[m % base.length]} ${Math.floor(m / base.length) + 2}`;
  };
}

/**
 * The deployment's app plus bench-only routes that run the same search service lexically or by
 * vectors alone (the API has no mode field): POST /bench/lexical-search, POST /bench/vector-search.
 */
export async function startBenchServer(rt: Runtime): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildApp(rt);
  for (const mode of ["lexical", "vector"] as const) {
    app.post(
      `/bench/${mode}-search`,
      { config: needs("search"), schema: { hide: true, body: ref(SearchRequest), response: { 200: ref(SearchResponse), ...errors(401, 403, 404, 422, 429) } } },
      async (req) => rt.search.search(req.principal!, req.body as SearchBody, { mode }),
    );
  }
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { app, url: `http://127.0.0.1:${port}` };
}

export async function searchKey(rt: Runtime, principal: Principal): Promise<string> {
  return (await rt.apiKeys.create(principal, { name: "bench search key", scopes: ["search"] })).key;
}

async function post(url: string, key: string, body: unknown): Promise<{ ok: boolean; mode?: string }> {
  const res = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await res.json()) as { mode?: string };
  return { ok: res.status === 200, mode: json.mode };
}

async function sequential(url: string, key: string, collectionId: string, next: () => string, n: number): Promise<LatencyResult & { modes: Set<string> }> {
  const samples: number[] = [];
  const modes = new Set<string>();
  let errs = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await post(url, key, { collection_id: collectionId, query: next(), top_k: 10 });
    samples.push(performance.now() - t0);
    if (!r.ok) errs++;
    if (r.mode) modes.add(r.mode);
  }
  return { ...latencySummary(samples), errors: errs, modes };
}

async function concurrent(url: string, key: string, collectionId: string, next: () => string, clients: number, seconds: number): Promise<QpsResult> {
  const samples: number[] = [];
  let errs = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await post(url, key, { collection_id: collectionId, query: next(), top_k: 10 }).catch(() => ({ ok: false }));
        samples.push(performance.now() - t0);
        if (!r.ok) errs++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return { clients, seconds: elapsed, requests: samples.length, errors: errs, qps: (samples.length - errs) / elapsed, latency: latencySummary(samples) };
}

export async function measureSpeed(
  rt: Runtime,
  principal: Principal,
  collectionId: string,
  queryTexts: string[],
  seen: Set<string>,
  o: { latencyQueries: number; clients: number; qpsSeconds: number },
  log: (msg: string) => void,
): Promise<SpeedResult> {
  const { app, url } = await startBenchServer(rt);
  try {
    const key = await searchKey(rt, principal);
    const next = freshQueries(queryTexts, seen);
    const hybridUrl = `${url}/search`;
    const lexicalUrl = `${url}/bench/lexical-search`;
    await sequential(hybridUrl, key, collectionId, next, 20); // warm-up: connections, JIT, SQLite pages
    await sequential(lexicalUrl, key, collectionId, next, 20);
    const hybrid = await sequential(hybridUrl, key, collectionId, next, o.latencyQueries);
    log(`  hybrid  sequential: p50 ${hybrid.p50?.toFixed(1)} ms, p95 ${hybrid.p95?.toFixed(1)} ms (${hybrid.count} queries, ${hybrid.errors} errors)`);
    const lexical = await sequential(lexicalUrl, key, collectionId, next, o.latencyQueries);
    log(`  lexical sequential: p50 ${lexical.p50?.toFixed(1)} ms, p95 ${lexical.p95?.toFixed(1)} ms`);
    const qpsHybrid = await concurrent(hybridUrl, key, collectionId, next, o.clients, o.qpsSeconds);
    log(`  hybrid  ${o.clients} clients: ${qpsHybrid.qps.toFixed(1)} QPS, p95 ${qpsHybrid.latency.p95?.toFixed(1)} ms`);
    const qpsLexical = await concurrent(lexicalUrl, key, collectionId, next, o.clients, o.qpsSeconds);
    log(`  lexical ${o.clients} clients: ${qpsLexical.qps.toFixed(1)} QPS, p95 ${qpsLexical.latency.p95?.toFixed(1)} ms`);
    const { modes, ...h } = hybrid;
    const { modes: _m, ...l } = lexical;
    void _m;
    return { hybrid: h, lexical: l, qps_hybrid: qpsHybrid, qps_lexical: qpsLexical, mode: modes.size === 1 ? [...modes][0] : [...modes].join("+") };
  } finally {
    await app.close();
  }
}
