// Time until uploaded Markdown files are all lexically searchable (issue 12 item 4), over real
// HTTP against a real server on a fresh DATA_DIR with the real model loaded: N files go up in
// requests of 100, then the clock runs until every document is indexed and a lexical search for
// each file's unique marker word finds it. The vector backlog at that moment is reported too, to
// show lexical indexing did not wait for embeddings.
//
//   npx tsx src/evaluation/bench/lexical-availability.ts [--files 1000] [--keep]
//
// The file bodies are SciFact abstracts when BEIR_DATA_DIR (or ../shared/datasets) holds
// scifact/corpus.jsonl, otherwise generated prose; the output says which.
import fs from "node:fs";
import { parseArgs } from "node:util";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../config.js";
import { createRuntime, type Runtime } from "../../runtime.js";
import { buildApp } from "../../http/app.js";
import { beirDataDir } from "../benchmarks/industry-benchmarks.js";
import { DEFAULT_ENGINE_SETTINGS } from "../../search/engine.js";

const PLATFORM_KEY = "bench-platform-key-0123456789";
const BATCH = 100;

const { values: opts } = parseArgs({ options: { files: { type: "string", default: "1000" }, keep: { type: "boolean", default: false } } });

function markdownBodies(n: number, dataDir: string): { bodies: string[]; origin: string } {
  const corpus = path.join(beirDataDir(process.env.BEIR_DATA_DIR ?? null, dataDir), "scifact", "corpus.jsonl");
  if (fs.existsSync(corpus)) {
    const lines = fs.readFileSync(corpus, "utf8").split("\n").filter(Boolean).slice(0, n);
    const bodies = lines.map((l) => {
      const d = JSON.parse(l) as { title: string; text: string };
      return `# ${d.title}\n\n${d.text}\n`;
    });
    return { bodies, origin: `SciFact abstracts (${corpus})` };
  }
  const words = "index query vector lexical shard replica segment posting document field token".split(" ");
  const bodies = Array.from({ length: n }, (_, i) => `# Note ${i}\n\n${Array.from({ length: 200 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(" ")}\n`);
  return { bodies, origin: "generated prose (no SciFact corpus found)" };
}

type Call = (method: string, p: string, key: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** Requests to the server: JSON bodies, or FormData as multipart. */
function httpCaller(url: string): Call {
  return async (method, p, key, body) => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${key}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const r = await fetch(url + p, init);
    return { status: r.status, body: (await r.json()) as any };
  };
}

async function startServer(dataDir: string) {
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: "0", PLATFORM_API_KEY: PLATFORM_KEY, LOG_LEVEL: "warn" });
  const rt = await createRuntime(config, { log: pino({ level: "warn" }) });
  const app = await buildApp(rt);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  return { config, rt, app, call: httpCaller(url) };
}

/** A tenant with an upload source and a collection over it. */
async function workspace(call: Call) {
  const t = await call("POST", "/tenants", PLATFORM_KEY, { name: "Availability bench" });
  const key = t.body.admin_key.key as string;
  const source = (await call("POST", "/data-sources", key, { name: "Notes", source_type: "upload" })).body.id as string;
  const collection = (await call("POST", "/collections", key, { name: "Notes", data_source_ids: [source] })).body.id as string;
  return { tenantId: t.body.tenant.id as string, key, source, collection };
}

type Workspace = Awaited<ReturnType<typeof workspace>>;

const marker = (i: number) => `zqmarker${i.toString(36)}x`;

/** Uploads every body as note-<i>.md, with its marker word, in requests of BATCH files. */
async function uploadAll(call: Call, w: Workspace, bodies: string[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += BATCH) {
    const form = new FormData();
    form.append("data_source_id", w.source);
    for (let j = i; j < Math.min(bodies.length, i + BATCH); j++) {
      form.append("files", new Blob([`${bodies[j]}\nMarker ${marker(j)}.\n`], { type: "text/markdown" }), `note-${j}.md`);
    }
    const r = await call("POST", "/documents/upload", w.key, form);
    if (r.status !== 202) throw new Error(`upload failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** Until every document is indexed (the source's counts, one request per poll). */
async function waitAllIndexed(call: Call, w: Workspace, n: number): Promise<void> {
  for (;;) {
    const s = (await call("GET", `/data-sources/${w.source}`, w.key)).body;
    if (s.indexed_count + (s.failed_count ?? 0) >= n) break;
    await new Promise((res) => setTimeout(res, 50));
  }
}

// The engine's lexical retriever, in process: over HTTP, hybrid fusion may rank semantic
// neighbours of a nonsense word first.
async function expectEachFoundByMarker(rt: Runtime, w: Workspace, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await rt.engine.rank(w.tenantId, [w.source], marker(i), DEFAULT_ENGINE_SETTINGS, "lexical");
    if (r.ranked[0]?.chunk.source !== `note-${i}.md`) throw new Error(`note-${i} not found by its marker`);
  }
}

/** The timed run: upload, all indexed, all found; with the CPU this process spent until then. */
async function measure(call: Call, rt: Runtime, w: Workspace, bodies: string[]) {
  const started = performance.now();
  // CPU of this process (all its threads) over the measured span: on a shared machine the wall
  // time mostly measures the neighbours, the CPU seconds measure Quarry's own work
  const cpuStart = process.cpuUsage();
  await uploadAll(call, w, bodies);
  const uploadedMs = performance.now() - started;
  await waitAllIndexed(call, w, bodies.length);
  const indexedMs = performance.now() - started;
  await expectEachFoundByMarker(rt, w, bodies.length);
  const hybrid = await call("POST", "/search", w.key, { collection_id: w.collection, query: "unstable angina classification", top_k: 3 });
  const searchableMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  return { uploadedMs, indexedMs, searchableMs, cpu, hybrid };
}

async function main(): Promise<void> {
  const n = Number(opts.files);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--files takes a whole number above 0, not '${opts.files}'`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-availability-"));
  const { config, rt, app, call } = await startServer(dataDir);
  try {
    const modelReady = await rt.embedder?.whenReady();
    const w = await workspace(call);
    const { bodies, origin } = markdownBodies(n, dataDir);
    const m = await measure(call, rt, w, bodies);
    const src = (await call("GET", `/data-sources/${w.source}`, w.key)).body;
    const health = (await call("GET", "/health", w.key)).body;
    console.log(
      JSON.stringify(
        {
          files: bodies.length,
          origin,
          model_ready: modelReady ?? false,
          ingest_workers: config.ingestWorkers,
          upload_ms: Math.round(m.uploadedMs),
          all_indexed_ms: Math.round(m.indexedMs),
          all_lexically_found_ms: Math.round(m.searchableMs),
          cpu_ms_until_found: Math.round((m.cpu.user + m.cpu.system) / 1000),
          cores: os.availableParallelism(),
          load_average: os.loadavg().map((x) => Math.round(x * 10) / 10),
          chunks_pending_vectors_then: src.chunks_pending_vectors,
          hybrid_search_then: { status: m.hybrid.status, mode: m.hybrid.body.mode, took_ms: m.hybrid.body.took_ms },
          health_vectors: health.vectors,
        },
        null,
        2,
      ),
    );
  } finally {
    await app.close();
    await rt.close();
    if (!opts.keep) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
