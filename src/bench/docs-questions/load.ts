// The documentation bench's deployment: a runtime on its own DATA_DIR (temporary, or kept with
// --keep and reused when it already holds the same docs), listening on loopback with the bench
// routes, and the docs crawled into it through POST /crawl from a static site on loopback.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { Runtime } from "../../runtime.js";
import { openBenchRuntime, operatorPrincipal } from "../load.js";
import { startBenchServer } from "../speed.js";
import { serveDocs, type DocsSite } from "./site.js";
import { pageOf } from "./questions.js";

export interface DocsLoadStats {
  pages: number;
  documents: number;
  failed: number;
  chunks: number;
  /** POST /crawl until the job completed */
  crawl_s: number;
  /** POST /crawl until every page was indexed (lexically searchable) */
  lexical_s: number;
  /** POST /crawl until every chunk had its vector (null: model unavailable) */
  vectors_s: number | null;
  reused: boolean;
}

/** Pages whose document failed to index (parse errors, limits), with the reason, from GET /documents. */
export async function failedPages(d: Pick<DocsDeployment, "url" | "key" | "sourceId">): Promise<{ page: string; error: string }[]> {
  const docs: any[] = await apiClient(d.url, d.key)("GET", `/documents?data_source_id=${d.sourceId}`);
  return docs.filter((x) => x.status === "failed").map((x) => ({ page: pageOf(x.source), error: String(x.error ?? "") }));
}

export interface DocsDeployment {
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

interface Marker {
  docsDir: string;
  pages: string[];
  profile: string;
  chunking: string;
  tenantId: string;
  collectionId: string;
  sourceId: string;
  load: DocsLoadStats;
}

type Log = (msg: string) => void;
type Api = (method: string, p: string, json?: unknown) => Promise<any>;

function apiClient(url: string, key: string): Api {
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

/** Polls the crawl and its source until every page is indexed and (model ready) embedded; logs counts. */
async function waitLoaded(api: Api, crawlId: string, sourceId: string, wantVectors: boolean, log: Log) {
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
    const docs: any[] = await api("GET", `/documents?data_source_id=${sourceId}`);
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
          `${chunks} chunks, ${wantVectors ? `${chunks - pending}/${chunks} with vectors` : "no vectors (model unavailable)"}`,
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

/** Crawls the docs through the API into a new tenant; returns the ids and the load's numbers. */
async function crawlDocs(rt: Runtime, url: string, docsDir: string, pages: string[], log: Log) {
  const created = await rt.tenants.create({ name: "Docs questions bench" });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const key = created.admin_key.key;
  const api = apiClient(url, key);
  let site: DocsSite | null = null;
  try {
    site = await serveDocs(docsDir, pages);
    const collection = await api("POST", "/collections", { name: "Node.js API docs" });
    log(`crawling ${pages.length} pages of ${docsDir} served at ${site.start} with ${rt.activeProfile.name}...`);
    const job = await api("POST", "/crawl", {
      url: site.start,
      collection_id: collection.id,
      max_depth: 2,
      page_limit: pages.length + 10,
      include_paths: [site.prefix],
    });
    const wantVectors = rt.embedderStatus().state === "ready";
    const stats = await waitLoaded(api, job.id, job.data_source_id, wantVectors, log);
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

export async function openDocsDeployment(docsDir: string, pages: string[], keep: string | null, log: Log): Promise<DocsDeployment> {
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
    if (marker) {
      const same = marker.docsDir === docsDir && marker.pages.join() === pages.join() && marker.profile === p.name && marker.chunking === chunking;
      if (!same) throw new Error(`${dataDir} holds another load (${marker.docsDir}, ${marker.pages.length} pages, ${marker.profile}, ${marker.chunking}); use another --keep`);
      const tenant = await rt.store.tenants.get(marker.tenantId);
      if (!tenant) throw new Error(`${dataDir}: the bench tenant is gone; use a new --keep`);
      const key = (await rt.apiKeys.create(operatorPrincipal(tenant), { name: "docs questions bench", scopes: ["admin"] })).key;
      log(`reusing the docs loaded in ${dataDir} (${marker.load.documents} documents, ${marker.load.chunks} chunks)`);
      return { rt, url: started.url, key, collectionId: marker.collectionId, sourceId: marker.sourceId, load: { ...marker.load, reused: true }, dataDir, close };
    }
    const c = await crawlDocs(rt, started.url, docsDir, pages, log);
    const load: DocsLoadStats = { pages: pages.length, ...c.stats, reused: false };
    if (!temp) {
      const m: Marker = { docsDir, pages, profile: p.name, chunking, tenantId: c.tenantId, collectionId: c.collectionId, sourceId: c.sourceId, load };
      fs.writeFileSync(path.join(dataDir, MARKER), JSON.stringify(m, null, 2));
    }
    return { rt, url: started.url, key: c.key, collectionId: c.collectionId, sourceId: c.sourceId, load, dataDir, close };
  } catch (err) {
    await close();
    throw err;
  }
}
