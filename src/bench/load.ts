// The bench's deployment: a runtime on its own DATA_DIR (temporary, or kept with --data-dir and
// reused when it already holds the same data set), one enterprise tenant, and the data set loaded
// through the same import path as POST /industry-benchmarks/{name}/import.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../config.js";
import { createRuntime, type Runtime } from "../runtime.js";
import type { Principal } from "../services/auth.js";
import type { TenantRow } from "../store/types.js";
import { readQrels, readQueries, type BeirQrels } from "../search/beir.js";
import { findDataset } from "../search/beir-catalog.js";
import { missingBeirFiles } from "../services/beir-import.js";
import type { BenchOptions } from "./args.js";

export interface LoadStats {
  documents: number;
  chunks: number;
  /** rows + stored twins (before indexing) */
  prepareMs: number;
  /** chunk + embed + write */
  indexMs: number;
  embedded: boolean;
  reused: boolean;
}

export interface BenchContext {
  rt: Runtime;
  principal: Principal;
  tenant: TenantRow;
  collectionId: string;
  sourceId: string;
  suiteId: string | null;
  dataset: string;
  title: string;
  split: string;
  /** every query of the data set (the HTTP test draws unseen ones from here) */
  queries: Map<string, string>;
  /** the evaluated queries, in qrels order */
  queryIds: string[];
  qrels: BeirQrels;
  load: LoadStats;
  dataDir: string;
  close(): Promise<void>;
}

/** The operator acting inside a tenant (CLI and bench run in-process, without HTTP). */
export function operatorPrincipal(tenant: TenantRow): Principal {
  return { tenant, scopes: ["admin"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
}

/** the file in a kept DATA_DIR that says what the bench loaded there (read by search-cpu.ts too) */
export const BENCH_MARKER = "bench-dataset.json";

interface Marker {
  dataset: string;
  split: string;
  maxDocuments: number | null;
  limitQueries: number | null;
  profile: string;
  /** chunking the data was indexed with: a changed profile means the load is stale */
  chunking: string;
  tenantId: string;
  collectionId: string;
  sourceId: string;
  suiteId: string | null;
  load: LoadStats;
}

/** A runtime on `dataDir`; `env` adds settings (DATABASE_URL for the PostgreSQL store). */
export async function openBenchRuntime(dataDir: string, log: (msg: string) => void, env: Record<string, string> = {}): Promise<Runtime> {
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn", DEFAULT_PLAN: "enterprise", ...env });
  const rt = await createRuntime(config, { log: pino({ level: config.logLevel }) });
  const t0 = performance.now();
  const ready = (await rt.embedder?.whenReady()) ?? false;
  log(
    ready
      ? `model ${rt.activeProfile.name} ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`
      : `model ${rt.activeProfile.name} unavailable: ${rt.embedderStatus().detail ?? "unknown reason"}; lexical only`,
  );
  return rt;
}

export async function loadBenchContext(o: BenchOptions, log: (msg: string) => void): Promise<BenchContext> {
  const missing = missingBeirFiles(o.dataset, o.split);
  if (missing.length) throw new Error(`${o.dataset} is not a BEIR data set for split '${o.split}': missing ${missing.join(", ")}`);
  const temp = o.dataDir === null;
  const dataDir = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-"));
  fs.mkdirSync(dataDir, { recursive: true });
  const dataset = path.basename(o.dataset);
  const info = findDataset(dataset);
  const title = info?.title ?? dataset;

  const markerFile = path.join(dataDir, BENCH_MARKER);
  let marker: Marker | null = fs.existsSync(markerFile) ? (JSON.parse(fs.readFileSync(markerFile, "utf8")) as Marker) : null;
  if (!marker && !temp && fs.readdirSync(dataDir).some((f) => f.startsWith("quarry.db"))) {
    throw new Error(`${dataDir} holds a Quarry database that the bench did not create; pass an empty or new --data-dir`);
  }

  const rt = await openBenchRuntime(dataDir, log);
  const close = async () => {
    await rt.close();
    if (temp) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const p = rt.activeProfile;
    const chunking = `${p.chunk_size_tokens}/${p.chunk_overlap_tokens} tokens, ${p.dimension}-d`;
    const [allQrels, queries] = await Promise.all([readQrels(o.dataset, o.split), readQueries(o.dataset)]);
    const queryIds = [...allQrels.keys()].filter((q) => (queries.get(q)?.trim() ?? "") !== "").slice(0, o.limitQueries ?? undefined);
    const qrels: BeirQrels = new Map(queryIds.map((q) => [q, allQrels.get(q)!]));

    const same =
      marker &&
      marker.dataset === o.dataset &&
      marker.split === o.split &&
      marker.maxDocuments === o.maxDocuments &&
      marker.limitQueries === o.limitQueries &&
      marker.profile === rt.activeProfile.name &&
      marker.chunking === chunking;
    if (marker && !same) {
      throw new Error(`${dataDir} holds another load (${marker.dataset}, ${marker.split}, ${marker.profile}, ${marker.chunking ?? "older chunking"}); use another --data-dir`);
    }
    if (marker && same) {
      const tenant = await rt.store.tenants.get(marker.tenantId);
      if (!tenant) throw new Error(`${dataDir}: the bench tenant is gone; use a new --data-dir`);
      log(`reusing ${dataset} loaded in ${dataDir} (${marker.load.documents} documents, ${marker.load.chunks} chunks)`);
      return {
        rt,
        principal: operatorPrincipal(tenant),
        tenant,
        collectionId: marker.collectionId,
        sourceId: marker.sourceId,
        suiteId: marker.suiteId,
        dataset,
        title,
        split: o.split,
        queries,
        queryIds,
        qrels,
        load: { ...marker.load, reused: true },
        dataDir,
        close,
      };
    }

    const created = await rt.tenants.create({ name: `Bench ${dataset}` });
    await rt.tenants.setPlan(created.tenant.id, "enterprise");
    const tenant = (await rt.store.tenants.get(created.tenant.id))!;
    const principal = operatorPrincipal(tenant);
    log(`loading ${o.dataset} (${o.maxDocuments ? `at most ${o.maxDocuments} documents` : "whole corpus"}) with ${rt.activeProfile.name}...`);
    const t0 = performance.now();
    let lastLog = 0;
    const job = await rt.industryBenchmarks.importer.start(principal, {
      dir: o.dataset,
      dataset,
      title,
      split: o.split,
      maxQueries: o.limitQueries,
      maxDocuments: o.maxDocuments,
      onProgress: ({ indexed, total, chunks }) => {
        if (performance.now() - lastLog > 15_000 || indexed === total) {
          lastLog = performance.now();
          log(`  indexed ${indexed}/${total} documents, ${chunks} chunks, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
        }
      },
    });
    const prepareMs = performance.now() - t0;
    const done = await job.done;
    const load: LoadStats = { documents: done.indexed, chunks: done.chunks, prepareMs, indexMs: done.ms, embedded: done.embedded, reused: false };
    marker = {
      dataset: o.dataset,
      split: o.split,
      maxDocuments: o.maxDocuments,
      limitQueries: o.limitQueries,
      profile: rt.activeProfile.name,
      chunking,
      tenantId: tenant.id,
      collectionId: job.started.collection_id,
      sourceId: job.started.data_source_id,
      suiteId: job.started.suite_id,
      load,
    };
    if (!temp) fs.writeFileSync(markerFile, JSON.stringify(marker, null, 2));
    return {
      rt,
      principal,
      tenant,
      collectionId: job.started.collection_id,
      sourceId: job.started.data_source_id,
      suiteId: job.started.suite_id,
      dataset,
      title,
      split: o.split,
      queries,
      queryIds,
      qrels,
      load,
      dataDir,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
