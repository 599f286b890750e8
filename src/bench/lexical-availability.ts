// Time until uploaded Markdown files are all lexically searchable (issue 12 item 4), over real
// HTTP against a real server on a fresh DATA_DIR with the real model loaded: N files go up in
// requests of 100, then the clock runs until every document is indexed and a lexical search for
// each file's unique marker word finds it. The vector backlog at that moment is reported too, to
// show lexical indexing did not wait for embeddings.
//
//   npx tsx src/bench/lexical-availability.ts [--files 1000] [--keep]
//
// The file bodies are SciFact abstracts when BEIR_DATA_DIR (or ../shared/datasets) holds
// scifact/corpus.jsonl, otherwise generated prose; the output says which.
import fs from "node:fs";
import { parseArgs } from "node:util";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../config.js";
import { createRuntime } from "../runtime.js";
import { buildApp } from "../http/app.js";
import { beirDataDir } from "../services/industry-benchmarks.js";
import { DEFAULT_ENGINE_SETTINGS } from "../search/engine.js";

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

async function main(): Promise<void> {
  const n = Number(opts.files);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--files takes a whole number above 0, not '${opts.files}'`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-availability-"));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: "0", PLATFORM_API_KEY: PLATFORM_KEY, LOG_LEVEL: "warn" });
  const rt = await createRuntime(config, { log: pino({ level: "warn" }) });
  const app = await buildApp(rt);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  const call = async (method: string, p: string, key: string, body?: unknown) => {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${key}` } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const r = await fetch(url + p, init);
    return { status: r.status, body: (await r.json()) as any };
  };
  try {
    const modelReady = await rt.embedder?.whenReady();
    const t = await call("POST", "/tenants", PLATFORM_KEY, { name: "Availability bench" });
    const key = t.body.admin_key.key as string;
    const source = (await call("POST", "/data-sources", key, { name: "Notes", source_type: "upload" })).body.id as string;
    const collection = (await call("POST", "/collections", key, { name: "Notes", data_source_ids: [source] })).body.id as string;
    const { bodies, origin } = markdownBodies(n, dataDir);
    const marker = (i: number) => `zqmarker${i.toString(36)}x`;

    const started = performance.now();
    // CPU of this process (all its threads) over the measured span: on a shared machine the wall
    // time mostly measures the neighbours, the CPU seconds measure Quarry's own work
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < bodies.length; i += BATCH) {
      const form = new FormData();
      form.append("data_source_id", source);
      for (let j = i; j < Math.min(bodies.length, i + BATCH); j++) {
        form.append("files", new Blob([`${bodies[j]}\nMarker ${marker(j)}.\n`], { type: "text/markdown" }), `note-${j}.md`);
      }
      const r = await call("POST", "/documents/upload", key, form);
      if (r.status !== 202) throw new Error(`upload failed: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const uploadedMs = performance.now() - started;

    // every document indexed (the source's counts, one request per poll)
    for (;;) {
      const s = (await call("GET", `/data-sources/${source}`, key)).body;
      if (s.indexed_count + (s.failed_count ?? 0) >= bodies.length) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    const indexedMs = performance.now() - started;
    // and every file found by a lexical search for its marker (the engine's lexical retriever, in
    // process: over HTTP, hybrid fusion may rank semantic neighbours of a nonsense word first)
    const tenantId = t.body.tenant.id as string;
    for (let i = 0; i < bodies.length; i++) {
      const r = await rt.engine.rank(tenantId, [source], marker(i), DEFAULT_ENGINE_SETTINGS, "lexical");
      if (r.ranked[0]?.chunk.source !== `note-${i}.md`) throw new Error(`note-${i} not found by its marker`);
    }
    const hybrid = await call("POST", "/search", key, { collection_id: collection, query: "unstable angina classification", top_k: 3 });
    const searchableMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuStart);
    const src = (await call("GET", `/data-sources/${source}`, key)).body;
    const health = (await call("GET", "/health", key)).body;
    console.log(
      JSON.stringify(
        {
          files: bodies.length,
          origin,
          model_ready: modelReady ?? false,
          ingest_workers: config.ingestWorkers,
          upload_ms: Math.round(uploadedMs),
          all_indexed_ms: Math.round(indexedMs),
          all_lexically_found_ms: Math.round(searchableMs),
          cpu_ms_until_found: Math.round((cpu.user + cpu.system) / 1000),
          cores: os.availableParallelism(),
          load_average: os.loadavg().map((x) => Math.round(x * 10) / 10),
          chunks_pending_vectors_then: src.chunks_pending_vectors,
          hybrid_search_then: { status: hybrid.status, mode: hybrid.body.mode, took_ms: hybrid.body.took_ms },
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
