// Prometheus metrics of one process (GET /metrics). Each Runtime has its own registry, so several
// runtimes in one process (tests, the bench) never collide on metric names. Gauges that mirror the
// database (queue depth, embedding backlog, index size) are read when Prometheus scrapes, so they
// cost nothing between scrapes and are never stale.
import client, { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Embedder } from "./embed/types.js";

export interface ScrapeSources {
  /** jobs queued or running */
  pendingJobs(): Promise<number>;
  /** chunks of the active profile without a vector */
  embeddingBacklog(): Promise<number>;
  tenants(): Promise<number>;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics() {
  const registry = new Registry();
  client.collectDefaultMetrics({ register: registry, prefix: "quarry_" });
  let sources: ScrapeSources | null = null;
  const safe = async (fn: (() => Promise<number>) | undefined): Promise<number | null> => {
    try {
      return fn ? await fn() : null;
    } catch {
      return null; // a scrape must not fail because the database is busy; the gauge keeps its value
    }
  };

  const m = {
    registry,
    httpRequests: new Counter({ name: "quarry_http_requests_total", help: "HTTP requests by route, method and status", labelNames: ["method", "route", "status"], registers: [registry] }),
    httpDuration: new Histogram({ name: "quarry_http_request_duration_seconds", help: "HTTP request latency by route, method and status", labelNames: ["method", "route", "status"], buckets: LATENCY_BUCKETS, registers: [registry] }),
    searchDuration: new Histogram({ name: "quarry_search_duration_seconds", help: "Ranking latency by retrieval mode actually used", labelNames: ["mode"], buckets: LATENCY_BUCKETS, registers: [registry] }),
    searchZeroResults: new Counter({ name: "quarry_search_zero_results_total", help: "Searches (/search, /retrieve, tools) that found nothing, by retrieval mode", labelNames: ["mode"], registers: [registry] }),
    searchLowScore: new Counter({ name: "quarry_search_low_score_total", help: "Searches whose best hit scored below ANALYTICS_LOW_SCORE, by retrieval mode", labelNames: ["mode"], registers: [registry] }),
    searchLogFailures: new Counter({ name: "quarry_search_log_write_failures_total", help: "Search-log batches the store refused; their events are retried at the next flush", registers: [registry] }),
    searchLogDropped: new Counter({ name: "quarry_search_log_dropped_total", help: "Search-log events dropped: the buffer was full while the store refused writes, or the store still refused them at shutdown", registers: [registry] }),
    jobs: new Counter({ name: "quarry_jobs_total", help: "Finished background jobs by kind and outcome (done, retry, failed)", labelNames: ["kind", "outcome"], registers: [registry] }),
    jobDuration: new Histogram({ name: "quarry_job_duration_seconds", help: "Background job run time by kind", labelNames: ["kind"], buckets: [0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800], registers: [registry] }),
    embedDuration: new Histogram({ name: "quarry_embedding_duration_seconds", help: "Embedding call latency (query: one text; passages: one batch)", labelNames: ["kind"], buckets: LATENCY_BUCKETS, registers: [registry] }),
    embedTexts: new Counter({ name: "quarry_embedded_texts_total", help: "Texts embedded by kind", labelNames: ["kind"], registers: [registry] }),
    crawlPages: new Counter({ name: "quarry_crawl_pages_total", help: "Crawled pages by outcome (fetched, failed)", labelNames: ["outcome"], registers: [registry] }),
    crawls: new Counter({ name: "quarry_crawls_total", help: "Finished crawls by status", labelNames: ["status"], registers: [registry] }),
    queueDepth: new Gauge({
      name: "quarry_queue_jobs_pending",
      help: "Jobs queued or running",
      registers: [registry],
      async collect() {
        const n = await safe(sources?.pendingJobs);
        if (n !== null) this.set(n);
      },
    }),
    embedBacklog: new Gauge({
      name: "quarry_embedding_backlog_chunks",
      help: "Chunks of the active embedding profile still waiting for a vector",
      registers: [registry],
      async collect() {
        const n = await safe(sources?.embeddingBacklog);
        if (n !== null) this.set(n);
      },
    }),
    tenants: new Gauge({
      name: "quarry_tenants",
      help: "Tenants in the deployment",
      registers: [registry],
      async collect() {
        const n = await safe(sources?.tenants);
        if (n !== null) this.set(n);
      },
    }),
    modelReady: new Gauge({ name: "quarry_model_ready", help: "1 when the active embedding model can embed", registers: [registry] }),
    /** the database-backed gauges read from here at scrape time */
    setSources(s: ScrapeSources) {
      sources = s;
    },
  };
  return m;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Times `fn` into `h` (seconds) with `labels`. */
export async function timed<T>(h: Histogram<string>, labels: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const end = h.startTimer(labels);
  try {
    return await fn();
  } finally {
    end();
  }
}

/** The embedder with its two embedding calls timed; every other member passes through. */
export function instrumentEmbedder(e: Embedder, m: Metrics): Embedder {
  return new Proxy(e, {
    get(target, prop, receiver) {
      if (prop === "embedQuery") {
        return (text: string) => {
          m.embedTexts.inc({ kind: "query" });
          return timed(m.embedDuration, { kind: "query" }, () => target.embedQuery(text));
        };
      }
      if (prop === "embedPassages") {
        return (texts: string[]) => {
          m.embedTexts.inc({ kind: "passage" }, texts.length);
          return timed(m.embedDuration, { kind: "passages" }, () => target.embedPassages(texts));
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** The engine with rank() and rankIds() timed by the retrieval mode they actually used (hybrid falls back to lexical without a model). */
export function instrumentEngine<
  T extends { rank: (...args: never[]) => Promise<{ mode: string }>; rankIds: (...args: never[]) => Promise<{ mode: string }> },
>(engine: T, m: Metrics): T {
  const timed = <F extends (...args: never[]) => Promise<{ mode: string }>>(f: F): F =>
    (async (...args: never[]) => {
      const t0 = performance.now();
      const result = await f(...args);
      m.searchDuration.observe({ mode: result.mode }, (performance.now() - t0) / 1000);
      return result;
    }) as F;
  return { ...engine, rank: timed(engine.rank), rankIds: timed(engine.rankIds) };
}
