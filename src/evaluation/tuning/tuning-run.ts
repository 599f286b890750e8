// The tuning operation, taking its dependencies first (tuning.ts binds them): check the suite can
// be tuned, fetch every case's candidate lists once, search, score on both halves of the split,
// cross-validate the search itself (tuning-cv.ts), and apply the best setting when asked and when
// it holds on the held-out cases and out of fold; fit the collection's own score calibration under
// the setting it keeps (tuning-calibration.ts) and apply that when asked and better held out. The
// answer in the request (tuning-requests.ts) and the tuning job (tuning-job.ts) share runTuning;
// the job passes a progress callback and an abort signal. Either way the caller has counted the
// queries first.
import type { Store } from "../../store/types.js";
import type { CollectionCatalog } from "../../store/content-store.js";
import type { Json } from "../../store/content-types.js";
import type { BenchmarkCaseRow, BenchmarkSuiteRow } from "../../store/benchmark-types.js";
import type { EngineSettings, RetrievalMode } from "../../search/engine.js";
import {
  candidatePlan,
  coordinateSearch,
  evaluateSetting,
  HELD_OUT_SHARE,
  mayApply,
  MIN_TUNING_CASES,
  settingKey,
  splitCases,
  weightIndexOf,
  type TuningCase,
} from "./fusion-search.js";
import { crossValidate } from "./tuning-cv.js";
import { fitSuiteCalibration, MIN_CALIBRATION_LABELS, type SuiteCalibration } from "./tuning-calibration.js";
import { OFF_TOPIC_PROBES } from "../../search/off-topic.js";
import { tenantOf, type Principal } from "../../services/auth/auth-types.js";
import { notFound, ValidationError } from "../../services/errors.js";
import type { QuotaService } from "../../services/tenants/quotas.js";
import type { SearchService } from "../../services/search/search.js";
import { calibrationSettingOf, collectionSettingsOf, type CollectionScope } from "../../services/search/search-types.js";
import { tuneReport, type SettingScore } from "./tuning-report.js";
import type { AdaptationReport } from "../adaptation/adapt-run.js";

export interface TuneRequest {
  apply?: boolean;
  /** also adapt the collection's query model (evaluation/adaptation/), under the same apply */
  adapt_model?: boolean;
}

export interface TunerDeps {
  store: Pick<Store, "benchmarks" | "tenants"> & { content: CollectionCatalog };
  search: SearchService;
  quotas: QuotaService;
  /** the collection's query-model adaptation (adapt_model: true); absent, adapt_model answers 422 */
  adapt?: (tenantId: string, collectionId: string, body: { apply?: boolean }) => Promise<AdaptationReport>;
}

const f3 = (x: number) => x.toFixed(3);

const refuse = (msg: string, input: unknown) => new ValidationError([{ type: "value_error", loc: ["path", "suite_id"], msg, input }]);

/** What a tuning runs on: the suite, its collection and its cases. */
export interface SuiteToTune {
  suite: BenchmarkSuiteRow;
  scope: CollectionScope;
  cases: BenchmarkCaseRow[];
}

/** Where a tuning is: fetching each case's candidate lists (the slow part), then searching settings in memory. */
export interface TuneProgress {
  phase: "candidates" | "search";
  cases_done: number;
  cases_total: number;
}

/** How a caller follows and stops a tuning (the job); the synchronous call passes nothing. */
export interface TuneControl {
  /** called after each case's lists are fetched, then once when the search starts */
  onProgress?: (p: TuneProgress) => void | Promise<void>;
  /** checked before each case: an abort stops the tuning with the signal's reason */
  signal?: AbortSignal;
}

/** The suite, its collection and its cases, or a 404/422 saying why it cannot be tuned. */
export async function suiteToTune(deps: Pick<TunerDeps, "store">, tenantId: string, suiteId: string): Promise<SuiteToTune> {
  const suite = await deps.store.benchmarks.getSuite(tenantId, suiteId);
  if (!suite) throw notFound("Benchmark suite", suiteId);
  const scope = await deps.store.content.collectionScope(tenantId, suite.collection_id);
  if (!scope) {
    throw refuse(
      `The suite's collection '${suite.collection_id}' no longer exists in this workspace, so there is nothing to tune. Create a suite for an existing collection.`,
      suiteId,
    );
  }
  if (scope.data_source_ids.length === 0) {
    throw refuse(`The suite's collection '${suite.collection_id}' has no data sources. Attach the data sources its cases refer to, then tune again.`, suiteId);
  }
  const cases = (await deps.store.benchmarks.listCases(tenantId, [suiteId])).get(suiteId) ?? [];
  if (cases.length < MIN_TUNING_CASES) {
    throw refuse(
      `The suite has ${cases.length} case${cases.length === 1 ? "" : "s"}; tuning needs at least ${MIN_TUNING_CASES} (${Math.round(HELD_OUT_SHARE * 100)}% are held out to check the result). ` +
        `Create a suite with at least ${MIN_TUNING_CASES} cases for this collection.`,
      cases.length,
    );
  }
  return { suite, scope, cases };
}

/** The off-topic probes' candidate lists, as cases with nothing relevant (not counted as queries: the service asks them). */
async function probeCasesOf(deps: TunerDeps, p: Principal, scope: CollectionScope, plan: ReturnType<typeof candidatePlan>, control: TuneControl): Promise<TuningCase[]> {
  const out: TuningCase[] = [];
  for (const [i, query] of OFF_TOPIC_PROBES.entries()) {
    control.signal?.throwIfAborted();
    out.push({ id: `off-topic-${i}`, relevant: new Set(), candidates: await deps.search.candidates(p, scope, query, plan) });
  }
  return out;
}

/** Each case searched once; its candidate lists are reused for every setting. */
async function tuningCasesOf(deps: TunerDeps, p: Principal, target: SuiteToTune, plan: ReturnType<typeof candidatePlan>, control: TuneControl) {
  const { scope, cases } = target;
  const tuningCases: TuningCase[] = [];
  const modes = new Set<RetrievalMode>();
  for (const c of cases) {
    control.signal?.throwIfAborted();
    const candidates = await deps.search.candidates(p, scope, c.query, plan);
    modes.add(candidates.mode);
    tuningCases.push({ id: c.id, relevant: new Set(c.relevant_document_ids), candidates });
    await control.onProgress?.({ phase: "candidates", cases_done: tuningCases.length, cases_total: cases.length });
  }
  const mode: RetrievalMode | "mixed" = modes.size === 1 ? [...modes][0]! : "mixed";
  return { tuningCases, mode };
}

interface Verdict {
  changed: boolean;
  /** the best setting does not lose on the held-out cases */
  holds: boolean;
  /** the search's choices do not lose out of fold (tuning generalises on this suite) */
  generalises: boolean;
  requested: boolean;
  heldOutLine: string;
  crossLine: string;
}

/**
 * Writes the best setting to the collection only when it changed, holds, generalises and was asked
 * for; returns the collection's settings after it.
 */
async function applyIfAllowed(deps: TunerDeps, tenantId: string, suite: BenchmarkSuiteRow, scope: CollectionScope, best: EngineSettings, v: Verdict) {
  const unchanged = { settings: scope.settings };
  if (!v.changed) return { ...unchanged, applied: false, detail: "The current setting is already the best found on the tuning cases; nothing to change." };
  if (!v.holds) {
    const detail =
      `Not applied: the best setting on the tuning cases loses on the held-out cases (${v.heldOutLine}), so it would likely not carry over to new queries. ` +
      "The collection's settings are unchanged; add cases to the suite for a more reliable tuning.";
    return { ...unchanged, applied: false, detail };
  }
  if (!v.generalises) {
    const detail =
      `Not applied: it does not lose on the held-out cases (${v.heldOutLine}), but the search's choices lose out of fold (${v.crossLine}), so on this suite tuning picks noise. ` +
      "The collection's settings are unchanged; add cases to the suite for a more reliable tuning.";
    return { ...unchanged, applied: false, detail };
  }
  if (!v.requested) {
    return {
      ...unchanged,
      applied: false,
      detail: `Not applied (the request did not ask for it). It does not lose on the held-out cases (${v.heldOutLine}) nor out of fold (${v.crossLine}); send apply: true to apply it.`,
    };
  }
  const settings: Json = { ...scope.settings, ...collectionSettingsOf(best) };
  await deps.store.content.updateCollection(tenantId, suite.collection_id, { settings });
  return { settings, applied: true, detail: `Applied to collection '${suite.collection_id}' (${v.heldOutLine}; ${v.crossLine}); searches of the collection use it from now on.` };
}

const f4 = (x: number) => x.toFixed(4);

/**
 * Writes the fitted calibration to the collection (settings.relevance_calibration) when asked and
 * when it scores the held-out cases' hits better (lower Brier score) than the calibration in effect.
 */
async function applyCalibration(deps: TunerDeps, tenantId: string, collectionId: string, settings: Json, c: SuiteCalibration | null, requested: boolean) {
  if (!c) return { applied: false, detail: "Not fitted: the suite's cases were answered in different modes (some without the embedding model), so one calibration cannot cover them." };
  if (!c.fitted) {
    return {
      applied: false,
      detail: `Not fitted: the tuning cases' first hits hold ${c.hits.tuning_relevant} relevant of ${c.hits.tuning}; a fit needs at least ${MIN_CALIBRATION_LABELS} relevant and ${MIN_CALIBRATION_LABELS} not. Add cases to the suite.`,
    };
  }
  const kept = (k: { held_out_kept: number; held_out_relevant_kept: number }) => `${k.held_out_kept.toFixed(2)} (${k.held_out_relevant_kept.toFixed(2)} relevant)`;
  const line =
    `held-out Brier score ${f4(c.fitted.held_out_brier)} against ${f4(c.current.held_out_brier)} for the calibration in effect; ` +
    `/retrieve would keep ${kept(c.fitted)} hits per held-out case against ${kept(c.current)}`;
  if (!(c.fitted.held_out_brier < c.current.held_out_brier)) return { applied: false, detail: `Not applied: the fitted calibration is not better on the held-out cases (${line}).` };
  if (!requested) return { applied: false, detail: `Not applied (the request did not ask for it); it is better on the held-out cases (${line}); send apply: true to apply it.` };
  await deps.store.content.updateCollection(tenantId, collectionId, { settings: { ...settings, relevance_calibration: calibrationSettingOf(c.fitted.calibration) } });
  return { applied: true, detail: `Applied to collection '${collectionId}' (${line}); its scores use it from now on.` };
}

/** The tuning itself, once the suite is checked and its queries are counted (by the caller). */
export async function runTuning(deps: TunerDeps, p: Principal, target: SuiteToTune, body: TuneRequest, control: TuneControl = {}, started = performance.now()) {
  const { suite, scope, cases } = target;
  const current = deps.search.settingsOf(scope);
  const plan = candidatePlan(current);
  const { tuningCases, mode } = await tuningCasesOf(deps, p, target, plan, control);
  await control.onProgress?.({ phase: "search", cases_done: cases.length, cases_total: cases.length });
  const { tuning, heldOut } = splitCases(tuningCases);
  const outcome = coordinateSearch(tuning, current, mode === "hybrid" ? "hybrid" : "lexical");
  const score = (s: EngineSettings): SettingScore => ({
    tuning: evaluateSetting(tuning, s, weightIndexOf(current, s)),
    held_out: evaluateSetting(heldOut, s, weightIndexOf(current, s)),
  });
  const now = score(current);
  const found = score(outcome.best);
  const changed = settingKey(outcome.best) !== settingKey(current);
  const holds = mayApply(found.held_out, now.held_out);
  const heldOutLine = `held-out nDCG@10 ${f3(found.held_out.ndcg_at_10)} against ${f3(now.held_out.ndcg_at_10)} for the current setting`;
  // only worth its k searches when there is something to apply
  const cv = changed ? crossValidate(tuningCases, current, mode === "hybrid" ? "hybrid" : "lexical") : null;
  const generalises = cv === null || mayApply(cv.tuned, cv.current);
  // four decimals: out-of-fold means over all cases often differ only in the fourth
  const crossLine = cv ? `${cv.folds}-fold nDCG@10 ${cv.tuned.ndcg_at_10.toFixed(4)} against ${cv.current.ndcg_at_10.toFixed(4)}` : "";
  const requested = body.apply === true;
  // the calibration is fitted under the setting the collection keeps, so it sees the lists it will
  // score; its probes are searched before anything is written, so a cancel leaves the collection as it was
  const kept = changed && holds && generalises && requested ? { ...outcome.best, calibration: current.calibration } : current;
  const probes = mode === "mixed" ? [] : (await probeCasesOf(deps, p, scope, plan, control)).filter((c) => c.candidates.mode === mode);
  const fit = mode === "mixed" ? null : fitSuiteCalibration({ tuning, heldOut }, probes, kept, weightIndexOf(current, kept), mode);
  // the last point where a cancelled job stops without having written anything
  control.signal?.throwIfAborted();
  const tenantId = tenantOf(p).id;
  const { applied, detail, settings } = await applyIfAllowed(deps, tenantId, suite, scope, outcome.best, { changed, holds, generalises, requested, heldOutLine, crossLine });
  const calibrationApply = await applyCalibration(deps, tenantId, suite.collection_id, settings, fit, requested);
  // after the settings above are written: the adaptation re-reads the collection and keeps them
  const adaptation = body.adapt_model === true ? await adaptModel(deps, tenantId, suite.collection_id, requested) : undefined;

  const report = tuneReport({
    suite,
    mode,
    tuningIds: tuning.map((c) => c.id),
    heldOutIds: heldOut.map((c) => c.id),
    outcome,
    plan,
    current,
    now,
    found,
    changed,
    crossValidation: cv,
    apply: { requested, applied, allowed: changed && holds && generalises, detail },
    calibration: { fit, apply: { requested, ...calibrationApply } },
    started,
  });
  return adaptation === undefined ? report : { ...report, model_adaptation: adaptation };
}

/** adapt_model: true; the adaptation's answer (AdaptationOut), or why it could not run. */
async function adaptModel(deps: TunerDeps, tenantId: string, collectionId: string, apply: boolean): Promise<AdaptationReport | { error: string }> {
  if (!deps.adapt) throw new ValidationError([{ type: "value_error", loc: ["body", "adapt_model"], msg: "This server cannot adapt query models.", input: true }]);
  try {
    return await deps.adapt(tenantId, collectionId, { apply });
  } catch (err) {
    // the fusion tuning stands; the answer says why the model was not adapted
    if (err instanceof ValidationError) return { error: err.issues.map((i) => i.msg).join(" ") };
    throw err;
  }
}
