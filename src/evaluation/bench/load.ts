// The bench's deployment: a runtime on its own DATA_DIR (temporary, or kept with --data-dir and
// reused when it already holds the same data set), one enterprise tenant, and the data set loaded
// through the same import path as POST /industry-benchmarks/{name}/import.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../../config.js";
import { createRuntime, type Runtime } from "../../runtime.js";
import { readQrels, readQueries, type BeirQrels } from "../beir/beir-files.js";
import { findDataset } from "../beir/beir-catalog.js";
import { missingBeirFiles } from "../beir/beir-import.js";
import type { BenchOptions } from "./args.js";
import { importDataset, type ImportedLoad } from "./load-import.js";
import { loadedModel, readMarker, sameLoad, writeMarker, type Marker } from "./load-marker.js";
import { operatorPrincipal, type BenchContext } from "./load-types.js";

export { BENCH_MARKER } from "./load-marker.js";
export { operatorPrincipal, type BenchContext, type LoadStats } from "./load-types.js";

/** A runtime on `dataDir`; `env` adds settings (DATABASE_URL for the PostgreSQL store). */
export async function openBenchRuntime(dataDir: string, log: (msg: string) => void, env: Record<string, string> = {}): Promise<Runtime> {
  // nothing adapts on its own: a bench measures the model it names (--adapt asks for an adaptation)
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? "warn", DEFAULT_PLAN: "enterprise", ADAPT_AUTO_MIN_DOCUMENTS: "0", ...env });
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

/** What a load needs besides the runtime: the options, where, and what is already there. */
interface LoadSetup {
  o: BenchOptions;
  dataDir: string;
  temp: boolean;
  dataset: string;
  title: string;
  marker: Marker | null;
  close(): Promise<void>;
}

/** Every query of the data set, and the evaluated ones (non-empty, at most --limit-queries) with their qrels. */
async function evaluatedQueries(o: BenchOptions): Promise<{ queries: Map<string, string>; queryIds: string[]; qrels: BeirQrels }> {
  const [allQrels, queries] = await Promise.all([readQrels(o.dataset, o.split), readQueries(o.dataset)]);
  const queryIds = [...allQrels.keys()].filter((q) => (queries.get(q)?.trim() ?? "") !== "").slice(0, o.limitQueries ?? undefined);
  const qrels: BeirQrels = new Map(queryIds.map((q) => [q, allQrels.get(q)!]));
  return { queries, queryIds, qrels };
}

/** The load a matching marker describes, found again in the kept DATA_DIR. */
async function reusedLoad(rt: Runtime, s: LoadSetup, marker: Marker, log: (msg: string) => void): Promise<ImportedLoad> {
  const tenant = await rt.store.tenants.get(marker.tenantId);
  if (!tenant) throw new Error(`${s.dataDir}: the bench tenant is gone; use a new --data-dir`);
  log(`reusing ${s.dataset} loaded in ${s.dataDir} (${marker.load.documents} documents, ${marker.load.chunks} chunks)`);
  const { collectionId, sourceId, suiteId } = marker;
  return { tenant, principal: operatorPrincipal(tenant), collectionId, sourceId, suiteId, load: { ...marker.load, reused: true } };
}

/** Imports the data set and, in a kept DATA_DIR, marks what was loaded for the next run. */
async function freshLoad(rt: Runtime, s: LoadSetup, chunking: string, log: (msg: string) => void): Promise<ImportedLoad> {
  const loaded = await importDataset(rt, s.o, s, log);
  const marker: Marker = {
    dataset: s.o.dataset,
    split: s.o.split,
    maxDocuments: s.o.maxDocuments,
    limitQueries: s.o.limitQueries,
    profile: rt.activeProfile.name,
    chunking,
    model: loadedModel(rt),
    tenantId: loaded.tenant.id,
    collectionId: loaded.collectionId,
    sourceId: loaded.sourceId,
    suiteId: loaded.suiteId,
    load: loaded.load,
  };
  if (!s.temp) writeMarker(s.dataDir, marker);
  return loaded;
}

async function loadInto(rt: Runtime, s: LoadSetup, log: (msg: string) => void): Promise<BenchContext> {
  const p = rt.activeProfile;
  const chunking = `${p.chunk_size_tokens}/${p.chunk_overlap_tokens} tokens, ${p.dimension}-d`;
  const { queries, queryIds, qrels } = await evaluatedQueries(s.o);
  const { marker } = s;
  if (marker && !sameLoad(marker, s.o, p.name, chunking, loadedModel(rt))) {
    throw new Error(
      `${s.dataDir} holds another load (${marker.dataset}, ${marker.split}, ${marker.profile}, ${marker.chunking ?? "older chunking"}, ` +
        `embedded with ${marker.model ?? "an unrecorded model"}; this run's model is ${loadedModel(rt)}); use another --data-dir`,
    );
  }
  const loaded = marker ? await reusedLoad(rt, s, marker, log) : await freshLoad(rt, s, chunking, log);
  return { rt, ...loaded, dataset: s.dataset, title: s.title, split: s.o.split, queries, queryIds, qrels, dataDir: s.dataDir, close: s.close };
}

export async function loadBenchContext(o: BenchOptions, log: (msg: string) => void): Promise<BenchContext> {
  const missing = missingBeirFiles(o.dataset, o.split);
  if (missing.length) throw new Error(`${o.dataset} is not a BEIR data set for split '${o.split}': missing ${missing.join(", ")}`);
  const temp = o.dataDir === null;
  const dataDir = o.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "quarry-bench-"));
  fs.mkdirSync(dataDir, { recursive: true });
  const dataset = path.basename(o.dataset);
  const title = findDataset(dataset)?.title ?? dataset;
  const marker = readMarker(dataDir, temp);

  const rt = await openBenchRuntime(dataDir, log);
  const close = async () => {
    await rt.close();
    if (temp) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return await loadInto(rt, { o, dataDir, temp, dataset, title, marker, close }, log);
  } catch (err) {
    await close();
    throw err;
  }
}
