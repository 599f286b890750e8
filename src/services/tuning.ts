// POST /benchmarks/{suite_id}/tune: find fusion settings that suit a suite's collection.
// Every case's query is embedded once and its candidate lists fetched once (search/engine.ts
// candidates()); a coordinate search (search/tuning.ts) then ranks the tuning cases under a few
// tens of settings in memory. The best setting is checked on held-out cases and written to the
// collection's settings only when asked (apply: true) and when it does not lose there.
// Synchronous: the work is one embedding, one kNN and up to five BM25 queries per case, about
// what one to two runs of the suite cost, and runs answer synchronously too.
//
// The operation is a named function taking its dependencies: tuning-run.ts (the steps),
// tuning-report.ts (the answer). createTuner binds it to one set of dependencies for the runtime.
import type { Principal } from "./auth-model.js";
import { tuneSuite, type TuneRequest, type TunerDeps } from "./tuning-run.js";

export type { TuneRequest, TunerDeps } from "./tuning-run.js";

export function createTuner(deps: TunerDeps) {
  return function tune(p: Principal, suiteId: string, body: TuneRequest = {}) {
    return tuneSuite(deps, p, suiteId, body);
  };
}

export type TuneOut = Awaited<ReturnType<ReturnType<typeof createTuner>>>;
