// The suite page's "Tune search" card: POST /benchmarks/{id}/tune finds the collection's best
// fusion setting on the suite and fits its own score calibration, and this card shows what a
// person needs to decide: the current and the best setting on the held-out cases, whether the
// choice held out of fold, the calibration's Brier score and the contexts /retrieve would keep,
// and what applying did. "Apply" sends the same request with apply: true (the service applies
// only what passed its checks). A suite of more than 100 cases is tuned as a job, polled here.
import { useState } from "react";
import { api, type TuneOut, type TuningJob } from "../api";
import { Alert, Notice, percent, useSubmit } from "../ui";

const POLL_MS = 1_000;

/** The answer of the request (200), or of the job it started (202) once that job has ended. */
async function tune(suiteId: string, apply: boolean, onProgress: (job: TuningJob) => void): Promise<TuneOut> {
  const path = `/benchmarks/${encodeURIComponent(suiteId)}`;
  const first = await api<TuneOut | TuningJob>("POST", `${path}/tune`, { apply });
  if (!("status" in first)) return first;
  let job = first;
  while (job.status === "queued" || job.status === "running") {
    onProgress(job);
    await new Promise((r) => setTimeout(r, POLL_MS));
    job = await api<TuningJob>("GET", `${path}/tunings/${encodeURIComponent(job.id)}`);
  }
  if (job.status !== "completed" || !job.result) throw new Error(job.error ?? `The tuning ended ${job.status}.`);
  return job.result;
}

const settingLine = (s: TuneOut["best"]["settings"]) =>
  `${s.fusion}${s.fusion === "weighted" ? ` (${s.normalization})` : ""}, lexical ${s.lexical_weight} / vector ${s.vector_weight}, depth ${s.candidate_depth}, ` +
  `title ${s.field_weights.title} · headings ${s.field_weights.headings} · body ${s.field_weights.body}`;

export function TuneCard({ suiteId, cases }: { suiteId: string; cases: number }) {
  const submit = useSubmit();
  const [answer, setAnswer] = useState<TuneOut | null>(null);
  const [progress, setProgress] = useState<TuningJob["progress"] | null>(null);

  async function go(apply: boolean) {
    const r = await submit.run(() => tune(suiteId, apply, (job) => setProgress(job.progress)));
    setProgress(null);
    if (r) setAnswer(r);
  }
  // something would change: a setting that passed its checks, or a calibration better held out
  const c = answer?.calibration;
  const better = c?.fitted != null && c.current != null && c.fitted.held_out_brier < c.current.held_out_brier;
  const canApply = answer !== null && !answer.apply.applied && !answer.calibration.apply.applied && (answer.apply.allowed || better);

  return (
    <section className="card" aria-labelledby="tune-heading">
      <div className="card-head">
        <h2 id="tune-heading">Tune search</h2>
        <span className="muted">70% of the cases to search on, 30% held out to check</span>
      </div>
      <p className="muted">
        Searches fusion weights, candidate depth and field weights for this suite’s collection, and fits a score calibration of its own. Nothing changes until you apply; each case counts
        as one query.
      </p>
      <Alert error={submit.error} />
      {progress ? (
        <p className="muted" role="status">
          Tuning: {progress.phase}, {progress.cases_done} of {progress.cases_total} cases
        </p>
      ) : null}
      <button type="button" className="button" onClick={() => void go(false)} disabled={submit.busy}>
        {submit.busy ? `Tuning on ${cases} cases…` : "Find a better setting"}
      </button>
      {answer ? <TuneAnswer answer={answer} /> : null}
      {canApply ? (
        <button type="button" className="button button--secondary" onClick={() => void go(true)} disabled={submit.busy}>
          Apply what passed the checks
        </button>
      ) : null}
    </section>
  );
}

function TuneAnswer({ answer: t }: { answer: TuneOut }) {
  const c = t.calibration;
  return (
    <div className="tune-answer">
      <table className="tune">
        <caption className="visually-hidden">Current and best setting</caption>
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">nDCG@{t.k} tuning</th>
            <th scope="col">nDCG@{t.k} held out</th>
          </tr>
        </thead>
        <tbody>
          {(["current", "best"] as const).map((which) => (
            <tr key={which}>
              <th scope="row">
                {which === "current" ? "Current" : "Best found"}
                <span className="muted small"> {settingLine(t[which].settings)}</span>
              </th>
              <td data-label="tuning">{percent(t[which].tuning.ndcg_at_10)}</td>
              <td data-label="held out">{percent(t[which].held_out.ndcg_at_10)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {t.cross_validation ? (
        <p className="small">
          Out of fold ({t.cross_validation.folds} folds): {percent(t.cross_validation.tuned.ndcg_at_10)} against {percent(t.cross_validation.current.ndcg_at_10)} now;{" "}
          {t.cross_validation.folds_better} folds better, {t.cross_validation.folds_worse} worse.
        </p>
      ) : null}
      <Notice tone={t.apply.applied ? "success" : "info"}>{t.apply.detail}</Notice>
      <h3>Score calibration</h3>
      {c.fitted && c.current ? (
        <p className="small">
          Brier score on held-out cases {c.fitted.held_out_brier.toFixed(3)} against {c.current.held_out_brier.toFixed(3)} now (lower is better); /retrieve would keep{" "}
          {c.fitted.held_out_contexts_kept.toFixed(1)} hits per question ({c.fitted.held_out_relevant_kept.toFixed(1)} relevant) against {c.current.held_out_contexts_kept.toFixed(1)} (
          {c.current.held_out_relevant_kept.toFixed(1)}).
        </p>
      ) : null}
      <Notice tone={c.apply.applied ? "success" : "info"}>{c.apply.detail}</Notice>
    </div>
  );
}
