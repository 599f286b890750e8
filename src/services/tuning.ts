// POST /benchmarks/{suite_id}/tune: find fusion settings that suit a suite's collection.
// Every case's query is embedded once and its candidate lists fetched once (search/engine.ts
// candidates()); a coordinate search (search/tuning.ts) then ranks the tuning cases under a few
// tens of settings in memory. The best setting is checked on held-out cases and written to the
// collection's settings only when asked (apply: true) and when it does not lose there.
// Synchronous: the work is one embedding, one kNN and up to five BM25 queries per case, about
// what one to two runs of the suite cost, and runs answer synchronously too.
import type { Store } from "../store/types.js";
import type { Json } from "../store/content-types.js";
import type { EngineSettings, RetrievalMode } from "../search/engine.js";
import {
  candidatePlan,
  coordinateSearch,
  DEFAULT_SEARCH_SPACE,
  evaluateSetting,
  HELD_OUT_SHARE,
  mayApply,
  MIN_TUNING_CASES,
  settingKey,
  splitCases,
  TUNING_K,
  weightIndexOf,
  type SplitMetrics,
  type TuningCase,
} from "../search/tuning.js";
import { tenantOf, type Principal } from "./auth.js";
import { notFound, ValidationError } from "./errors.js";
import type { QuotaService } from "./quotas.js";
import { collectionSettingsOf, type SearchService } from "./search.js";

export interface TuneRequest {
  apply?: boolean;
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const metricsOut = (m: SplitMetrics) => ({ ndcg_at_10: r6(m.ndcg_at_10), recall_at_10: r6(m.recall_at_10), mrr_at_10: r6(m.mrr_at_10), cases: m.cases });
const f3 = (x: number) => x.toFixed(3);

export function createTuner(deps: { store: Store; search: SearchService; quotas: QuotaService }) {
  const bench = deps.store.benchmarks;
  const content = deps.store.content;

  const refuse = (msg: string, input: unknown) => new ValidationError([{ type: "value_error", loc: ["path", "suite_id"], msg, input }]);

  return async function tune(p: Principal, suiteId: string, body: TuneRequest = {}) {
    const started = performance.now();
    const tenant = tenantOf(p);
    const suite = await bench.getSuite(tenant.id, suiteId);
    if (!suite) throw notFound("Benchmark suite", suiteId);
    const scope = await content.collectionScope(tenant.id, suite.collection_id);
    if (!scope) {
      throw refuse(
        `The suite's collection '${suite.collection_id}' no longer exists in this workspace, so there is nothing to tune. Create a suite for an existing collection.`,
        suiteId,
      );
    }
    if (scope.data_source_ids.length === 0) {
      throw refuse(`The suite's collection '${suite.collection_id}' has no data sources. Attach the data sources its cases refer to, then tune again.`, suiteId);
    }
    const cases = (await bench.listCases(tenant.id, [suiteId])).get(suiteId) ?? [];
    if (cases.length < MIN_TUNING_CASES) {
      throw refuse(
        `The suite has ${cases.length} case${cases.length === 1 ? "" : "s"}; tuning needs at least ${MIN_TUNING_CASES} (${Math.round(HELD_OUT_SHARE * 100)}% are held out to check the result). ` +
          `Create a suite with at least ${MIN_TUNING_CASES} cases for this collection.`,
        cases.length,
      );
    }
    // each case is searched once (its lists are reused for every setting): one query each
    await deps.quotas.consumeQueries(tenant, cases.length);

    const current = deps.search.settingsOf(scope);
    const plan = candidatePlan(current);
    const tuningCases: TuningCase[] = [];
    const modes = new Set<RetrievalMode>();
    for (const c of cases) {
      const candidates = await deps.search.candidates(p, scope, c.query, plan);
      modes.add(candidates.mode);
      tuningCases.push({ id: c.id, relevant: new Set(c.relevant_document_ids), candidates });
    }
    const mode = modes.size === 1 ? [...modes][0]! : "mixed";
    const { tuning, heldOut } = splitCases(tuningCases);
    const outcome = coordinateSearch(tuning, current, mode === "hybrid" ? "hybrid" : "lexical");
    const best = outcome.best;
    const score = (s: EngineSettings) => ({
      tuning: evaluateSetting(tuning, s, weightIndexOf(current, s)),
      held_out: evaluateSetting(heldOut, s, weightIndexOf(current, s)),
    });
    const now = score(current);
    const found = score(best);
    const changed = settingKey(best) !== settingKey(current);
    const holds = mayApply(found.held_out, now.held_out);
    const heldOutLine = `held-out nDCG@10 ${f3(found.held_out.ndcg_at_10)} against ${f3(now.held_out.ndcg_at_10)} for the current setting`;

    let applied = false;
    let detail: string;
    if (!changed) {
      detail = "The current setting is already the best found on the tuning cases; nothing to change.";
    } else if (!holds) {
      detail =
        `Not applied: the best setting on the tuning cases loses on the held-out cases (${heldOutLine}), so it would likely not carry over to new queries. ` +
        "The collection's settings are unchanged; add cases to the suite for a more reliable tuning.";
    } else if (body.apply === true) {
      const settings: Json = { ...scope.settings, ...collectionSettingsOf(best) };
      await content.updateCollection(tenant.id, suite.collection_id, { settings });
      applied = true;
      detail = `Applied to collection '${suite.collection_id}' (${heldOutLine}); searches of the collection use it from now on.`;
    } else {
      detail = `Not applied (the request did not ask for it). It does not lose on the held-out cases (${heldOutLine}); send apply: true to apply it.`;
    }

    return {
      suite_id: suite.id,
      collection_id: suite.collection_id,
      mode,
      k: TUNING_K,
      objective: "ndcg_at_10 on the tuning cases (ties: recall_at_10, then mrr_at_10; a tie keeps the current value)",
      split: {
        method: `deterministic by case id: cases ordered by the SHA-256 of their id, the first ${Math.round(HELD_OUT_SHARE * 100)}% held out, the rest tuned on`,
        tuning_case_ids: tuning.map((c) => c.id),
        held_out_case_ids: heldOut.map((c) => c.id),
      },
      search: {
        method: "coordinate search from the current setting over fusion (method, weights, normalisation), BM25 field weights and candidate depth; each query embedded once",
        dimensions: outcome.dimensions,
        settings_evaluated: outcome.evaluated,
        passes: outcome.passes,
        space: {
          fusion: DEFAULT_SEARCH_SPACE.fusion.map((f) => ({ fusion: f.method, lexical_weight: f.lexicalWeight, vector_weight: f.vectorWeight, normalization: f.method === "weighted" ? (f.normalization ?? "zscore") : null })),
          field_weights: plan.lexicalWeights,
          candidate_depth: [...new Set([current.depth, ...DEFAULT_SEARCH_SPACE.depth])],
        },
      },
      current: { settings: collectionSettingsOf(current), tuning: metricsOut(now.tuning), held_out: metricsOut(now.held_out) },
      best: { settings: collectionSettingsOf(best), tuning: metricsOut(found.tuning), held_out: metricsOut(found.held_out) },
      changed,
      apply: { requested: body.apply === true, applied, allowed: changed && holds, detail },
      took_ms: Math.round(performance.now() - started),
    };
  };
}

export type TuneOut = Awaited<ReturnType<ReturnType<typeof createTuner>>>;
