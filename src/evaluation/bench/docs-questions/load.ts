// The documentation bench's deployment: a runtime on its own DATA_DIR (temporary, or kept with
// --keep and reused when it already holds the same docs), listening on loopback with the bench
// routes, and a set's docs crawled into it through POST /crawl from a static site on loopback.
// The load waits for the vectors only when a vector mode is asked: a lexical-only run leaves the
// rest of the backfill to the next run on the kept load, which waits for it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { Runtime } from "../../../runtime.js";
import { openBenchRuntime, operatorPrincipal } from "../load.js";
import { loadedModel } from "../load-marker.js";
import { startBenchServer } from "../speed.js";
import { serveDocs, type DocsSite } from "./site.js";
import type { DocsSet } from "./sets.js";

export interface DocsLoadStats {
  pages: number;
  documents: number;
  failed: number;
  chunks: number;
  /** POST /crawl until the job completed */
  crawl_s: number;
  /** POST /crawl until every page was indexed (lexically searchable) */
  lexical_s: number;
  /** POST /crawl until every chunk had its vector (null: not waited for: model unavailable, or a lexical-only load) */
  vectors_s: number | null;
  reused: boolean;
  /** a reused load: chunks still without a vector when this run opened it, and how long it waited for them */
  pending_vectors_at_open?: number;
  vectors_wait_s?: number | null;
}

/** Every document of the crawl's source (GET /documents, followed page by page). */
async function listDocuments(d: Pick<DocsDeployment, "url" | "key" | "sourceId">): Promise<any[]> {
  const out: any[] = [];
  let next: string | null = `/documents?data_source_id=${d.sourceId}&limit=1000`;
  while (next) {
    const res: Response = await fetch(d.url + next, { headers: { authorization: `Bearer ${d.key}` } });
    if (res.status !== 200) throw new Error(`GET ${next}: ${res.status} ${await res.text()}`);
    out.push(...((await res.json()) as any[]));
    next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") ?? "")?.[1] ?? null;
  }
  return out;
}

/** Pages whose document failed to index (parse errors, limits), with the reason, from GET /documents. */
export async function failedPages(d: Pick<DocsDeployment, "url" | "key" | "sourceId" | "set">): Promise<{ page: string; error: string }[]> {
  const docs = await listDocuments(d);
  return docs.filter((x) => x.status === "failed").map((x) => ({ page: d.set.pageOf(x.source), error: String(x.error ?? "") }));
}

/** Pages of the set that have no document at all: the crawl never reached them. */
export async function uncrawledPages(d: Pick<DocsDeployment, "url" | "key" | "sourceId" | "set">, pages: string[]): Promise<string[]> {
  const have = new Set((await listDocuments(d)).map((x) => d.set.pageOf(x.source)));
  return pages.filter((p) => !have.has(p));
}

export interface DocsDeployment {
  set: DocsSet;
  rt: Runtime;
  /** the app on loopback: POST /search plus /bench/lexical-search and /bench/vector-search */
  url: string;
  key: string;
  collectionId: string;
  sourceId: string;
  load: DocsLoadStats;
  dataDir: string;
  close(): Promise<void>;
}

const MARKER = "docs-questions.json";

export interface Marker {
  docsDir: string;
  pages: string[];
  profile: string;
  chunking: string;
  /** what embedded the passages (load-marker.ts loadedModel): a changed model file makes the load stale */
  model?: string;
  tenantId: string;
  collectionId: string;
  sourceId: string;
  load: DocsLoadStats;
}

type Log = (msg: string) => void;
export type Api = (method: string, p: string, json?: unknown) => Promise<any>;

export function apiClient(url: string, key: string): Api {
  return async (method, p, json) => {
    const res = await fetch(url + p, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body = await res.json().catch(() => null);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the crawl and its source until every page is indexed and (wantVectors) embedded; logs counts. */
async function waitLoaded(api: Api, list: () => Promise<any[]>, crawlId: string, sourceId: string, wantVectors: boolean, log: Log) {
  const t0 = performance.now();
  const secs = () => (performance.now() - t0) / 1000;
  let crawlS: number | null = null;
  let lexicalS: number | null = null;
  let lastLog = -Infinity;
  let lastChange = performance.now();
  let lastState = "";
  for (;;) {
    const job = await api("GET", `/crawl/${crawlId}`);
    const src = await api("GET", `/data-sources/${sourceId}`);
    const docs = await list();
    const chunks = docs.reduce((n, d) => n + (d.chunk_count ?? 0), 0);
    const pending = src.chunks_pending_vectors ?? 0;
    const settled = docs.filter((d) => d.status === "indexed" || d.status === "failed").length;
    if (job.status === "failed" || job.status === "cancelled") throw new Error(`crawl ${job.status}: ${job.error ?? "no detail"}`);
    if (crawlS === null && job.status === "completed") crawlS = secs();
    const allSettled = crawlS !== null && settled === docs.length;
    if (lexicalS === null && allSettled) lexicalS = secs();
    const state = `${job.status} ${job.pages_crawled} ${settled} ${chunks} ${pending}`;
    if (state !== lastState) lastChange = performance.now();
    lastState = state;
    const done = allSettled && (!wantVectors || pending === 0);
    if (done || performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      log(
        `  ${secs().toFixed(0).padStart(4)} s  crawl ${job.status}, ${job.pages_crawled} pages; documents ${settled}/${docs.length} indexed; ` +
          `${chunks} chunks, ${chunks - pending}/${chunks} with vectors${wantVectors ? "" : " (not waited for)"}`,
      );
    }
    if (done) {
      const failed = docs.filter((d) => d.status === "failed");
      for (const d of failed) log(`  failed: ${d.source}: ${d.error}`);
      return { documents: docs.length, failed: failed.length, chunks, crawl_s: crawlS!, lexical_s: lexicalS!, vectors_s: wantVectors ? secs() : null };
    }
    if (performance.now() - lastChange > 15 * 60_000) throw new Error(`no progress for 15 minutes (${state})`);
    await sleep(2000);
  }
}

/** Waits until every chunk of the source has its vector (a reused load; a whole-model adaptation turned on or off), logging the rate. */
export async function waitVectors(api: Api, sourceId: string, log: Log): Promise<{ pending: number; wait_s: number }> {
  const t0 = performance.now();
  const first = ((await api("GET", `/data-sources/${sourceId}`)).chunks_pending_vectors ?? 0) as number;
  let pending = first;
  let lastLog = performance.now();
  let lastChange = performance.now();
  if (first > 0) log(`  ${first} chunks of the kept load wait for their vectors; waiting`);
  while (pending > 0) {
    await sleep(5000);
    const now = ((await api("GET", `/data-sources/${sourceId}`)).chunks_pending_vectors ?? 0) as number;
    if (now !== pending) lastChange = performance.now();
    pending = now;
    const secs = (performance.now() - t0) / 1000;
    if (pending === 0 || performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(`  ${secs.toFixed(0).padStart(5)} s  ${first - pending}/${first} vectors (${((first - pending) / secs).toFixed(1)} chunks/s), ${pending} to go`);
    }
    if (performance.now() - lastChange > 15 * 60_000) throw new Error(`no vector progress for 15 minutes (${pending} chunks pending)`);
  }
  return { pending: first, wait_s: (performance.now() - t0) / 1000 };
}

/** Crawls the docs through the API into a new tenant; returns the ids and the load's numbers. */
async function crawlDocs(rt: Runtime, url: string, set: DocsSet, docsDir: string, pages: string[], wantVectors: boolean, log: Log) {
  const created = await rt.tenants.create({ name: "Docs questions bench" });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const key = created.admin_key.key;
  const api = apiClient(url, key);
  let site: DocsSite | null = null;
  try {
    site = await serveDocs(docsDir, pages, set);
    // no automatic query adaptation (it would start during the load): --adapt asks for one when wanted
    const collection = await api("POST", "/collections", { name: set.title, settings: { model_adaptation_auto: false } });
    log(`crawling ${pages.length} pages of ${docsDir} served at ${site.start} with ${rt.activeProfile.name}...`);
    const job = await api("POST", "/crawl", {
      url: site.start,
      collection_id: collection.id,
      max_depth: set.maxDepth,
      page_limit: pages.length + 10,
      include_paths: [site.prefix],
    });
    const list = () => listDocuments({ url, key, sourceId: job.data_source_id });
    const stats = await waitLoaded(api, list, job.id, job.data_source_id, wantVectors, log);
    log(`  the static site answered ${site.requests()} requests`);
    return { tenantId: created.tenant.id, key, collectionId: collection.id as string, sourceId: job.data_source_id as string, stats };
  } finally {
    await site?.close();
  }
}

function readMarker(dataDir: string, temp: boolean): Marker | null {
  const file = path.join(dataDir, MARKER);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8")) as Marker;
  if (!temp && fs.readdirSync(dataDir).some((f) => f.startsWith("quarry.db"))) {
    throw new Error(`${dataDir} holds a Quarry database without a finished docs load (interrupted?); remove it or pass another --keep`);
  }
  return null;
}

/** Whether a kept load is the one this run would make: same pages, profile, chunking and model. */
export function sameDocsLoad(marker: Pick<Marker, "docsDir" | "pages" | "profile" | "chunking" | "model">, want: Pick<Marker, "docsDir" | "pages" | "profile" | "chunking" | "model">): boolean {
  return (
    marker.docsDir === want.docsDir &&
    marker.pages.join() === want.pages.join() &&
    marker.profile === want.profile &&
    marker.chunking === want.chunking &&
    marker.model === want.model
  );
}

/**
 * Opens the deployment with the set's docs loaded: crawled into a fresh DATA_DIR, or found in the
 * kept one. `vectors`: the run asks a vector mode, so the load (fresh or reused) waits until every
 * chunk has its vector when the model is ready.
 */
export async function openDocsDeployment(set: DocsSet, docsDir: string, pages: string[], keep: string | null, vectors: boolean, log: Log): Promise<DocsDeployment> {
  const temp = keep === null;
  const dataDir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "quarry-docs-questions-"));
  fs.mkdirSync(dataDir, { recursive: true });
  const marker = readMarker(dataDir, temp);
  const rt = await openBenchRuntime(dataDir, log, { CRAWL_ALLOW_PRIVATE_NETWORKS: "true" });
  let app: FastifyInstance | null = null;
  const close = async () => {
    await app?.close();
    await rt.close();
    if (temp) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const started = await startBenchServer(rt);
    app = started.app;
    const p = rt.activeProfile;
    const chunking = `${p.chunk_size_tokens}/${p.chunk_overlap_tokens} tokens, ${p.dimension}-d`;
    const wantVectors = vectors && rt.embedderStatus().state === "ready";
    const model = loadedModel(rt);
    if (marker) {
      // the model too: quarry-static keeps its name and vector index when its file changes, and a
      // kept load embedded by the shipped file, searched with a candidate's query vectors, read the
      // candidate 0.650 on the Node.js plain questions where a fresh load reads 0.705 (docs/model.md)
      if (!sameDocsLoad(marker, { docsDir, pages, profile: p.name, chunking, model })) {
        throw new Error(
          `${dataDir} holds another load (${marker.docsDir}, ${marker.pages.length} pages, ${marker.profile}, ${marker.chunking}, ` +
            `embedded with ${marker.model ?? "an unrecorded model"}; this run's model is ${model}); use another --keep`,
        );
      }
      const tenant = await rt.store.tenants.get(marker.tenantId);
      if (!tenant) throw new Error(`${dataDir}: the bench tenant is gone; use a new --keep`);
      const key = (await rt.apiKeys.create(operatorPrincipal(tenant), { name: "docs questions bench", scopes: ["admin"] })).key;
      log(`reusing the docs loaded in ${dataDir} (${marker.load.documents} documents, ${marker.load.chunks} chunks)`);
      const load: DocsLoadStats = { ...marker.load, reused: true };
      if (wantVectors) {
        const w = await waitVectors(apiClient(started.url, key), marker.sourceId, log);
        Object.assign(load, { pending_vectors_at_open: w.pending, vectors_wait_s: w.wait_s });
      }
      return { set, rt, url: started.url, key, collectionId: marker.collectionId, sourceId: marker.sourceId, load, dataDir, close };
    }
    const c = await crawlDocs(rt, started.url, set, docsDir, pages, wantVectors, log);
    const load: DocsLoadStats = { pages: pages.length, ...c.stats, reused: false };
    if (!temp) {
      const m: Marker = { docsDir, pages, profile: p.name, chunking, model, tenantId: c.tenantId, collectionId: c.collectionId, sourceId: c.sourceId, load };
      fs.writeFileSync(path.join(dataDir, MARKER), JSON.stringify(m, null, 2));
    }
    return { set, rt, url: started.url, key: c.key, collectionId: c.collectionId, sourceId: c.sourceId, load, dataDir, close };
  } catch (err) {
    await close();
    throw err;
  }
}
