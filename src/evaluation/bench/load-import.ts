// A fresh load: one enterprise tenant, and the data set imported through the same path as
// POST /industry-benchmarks/{name}/import, with progress logged every 15 s.
import type { Runtime } from "../../runtime.js";
import type { TenantRow } from "../../store/types.js";
import type { Principal } from "../../services/auth/auth.js";
import type { BenchOptions } from "./args.js";
import { operatorPrincipal, type LoadStats } from "./load-types.js";

export interface ImportedLoad {
  tenant: TenantRow;
  principal: Principal;
  collectionId: string;
  sourceId: string;
  suiteId: string | null;
  load: LoadStats;
}

async function benchTenant(rt: Runtime, dataset: string): Promise<TenantRow> {
  const created = await rt.tenants.create({ name: `Bench ${dataset}` });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  return (await rt.store.tenants.get(created.tenant.id))!;
}

/** Logs indexing progress at most every 15 s, and once at the end. */
function progressLogger(log: (msg: string) => void, t0: number) {
  let lastLog = 0;
  return ({ indexed, total, chunks }: { indexed: number; total: number; chunks: number }) => {
    if (performance.now() - lastLog > 15_000 || indexed === total) {
      lastLog = performance.now();
      log(`  indexed ${indexed}/${total} documents, ${chunks} chunks, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  };
}

export async function importDataset(rt: Runtime, o: BenchOptions, names: { dataset: string; title: string }, log: (msg: string) => void): Promise<ImportedLoad> {
  const tenant = await benchTenant(rt, names.dataset);
  const principal = operatorPrincipal(tenant);
  log(`loading ${o.dataset} (${o.maxDocuments ? `at most ${o.maxDocuments} documents` : "whole corpus"}) with ${rt.activeProfile.name}...`);
  const t0 = performance.now();
  const job = await rt.industryBenchmarks.importer.start(principal, {
    dir: o.dataset,
    dataset: names.dataset,
    title: names.title,
    split: o.split,
    maxQueries: o.limitQueries,
    maxDocuments: o.maxDocuments,
    onProgress: progressLogger(log, t0),
  });
  const prepareMs = performance.now() - t0;
  const done = await job.done;
  const load: LoadStats = { documents: done.indexed, chunks: done.chunks, prepareMs, indexMs: done.ms, embedded: done.embedded, reused: false };
  return {
    tenant,
    principal,
    collectionId: job.started.collection_id,
    sourceId: job.started.data_source_id,
    suiteId: job.started.suite_id,
    load,
  };
}
