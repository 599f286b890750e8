// --adapt: the loaded collection's model adapted on its own text (POST /collections/{id}/adapt,
// apply: true, of --adapt-kind) between two passes of the questions. The questions are never sent
// to it: the adaptation reads only the collection's documents, and its guards decide on its own
// held-out pairs. Kind queries: passages keep their vectors, so both passes search the same index
// and only the query model differs. Kind model: the second pass waits until the source's chunks
// are embedded again with the adapted model.
import { runQuestions, summarize, type DocsMode, type ModeSummary } from "./evaluate.js";
import type { DocsQuestion } from "./questions.js";
import type { DocsSet } from "./sets.js";
import { apiClient, waitVectors } from "./load.js";

export type AdaptKind = "queries" | "model";

export interface AdaptStep {
  /** the endpoint's answer (AdaptationOut), or its error */
  answer: Record<string, unknown>;
  /** the modes again, after the adaptation (the same as before when it was refused) */
  modes: ModeSummary[];
}

/** POST /collections/{id}/adapt (apply: true); a job (kind model) is followed at its Location, its phase logged as it changes. */
export async function adaptCollection(url: string, key: string, collectionId: string, kind: AdaptKind = "queries", log: (m: string) => void = () => {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}/collections/${encodeURIComponent(collectionId)}/adapt`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ apply: true, kind }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status === 200) return body;
  if (res.status !== 202) throw new Error(`POST /collections/${collectionId}/adapt: ${res.status} ${JSON.stringify(body)}`);
  const api = apiClient(url, key);
  const location = res.headers.get("location")!;
  const t0 = performance.now();
  let seen = "";
  for (;;) {
    const job = (await api("GET", location)) as { status: string; progress: { phase: string; folds_done: number; folds_total: number }; result: Record<string, unknown> | null; error: string | null };
    const at = `${job.progress.phase}${job.progress.phase === "cross-validation" ? ` ${job.progress.folds_done}/${job.progress.folds_total}` : ""}`;
    if (at !== seen) log(`  ${((performance.now() - t0) / 1000).toFixed(0).padStart(5)} s  adaptation ${(seen = at)}`);
    if (job.status === "completed") return job.result!;
    if (job.status === "failed") throw new Error(`adaptation ${location} failed: ${job.error}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/**
 * A kept load (--keep) may hold an adaptation a run with --adapt applied: the first pass is always
 * the base model's, so an enabled one is turned off (the revert setting) and said so.
 */
export async function revertAdaptation(url: string, key: string, collectionId: string, sourceId: string, log: (m: string) => void): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const at = `${url}/collections/${encodeURIComponent(collectionId)}`;
  const c = (await (await fetch(at, { headers })).json()) as { settings?: Record<string, unknown> };
  const a = c.settings?.model_adaptation as { id?: string; enabled?: boolean; kind?: string } | undefined;
  if (!a?.id || a.enabled === false) return;
  const res = await fetch(at, { method: "PATCH", headers, body: JSON.stringify({ settings: { ...c.settings, model_adaptation: { ...a, enabled: false } } }) });
  if (res.status !== 200) throw new Error(`PATCH ${at}: ${res.status} ${await res.text()}`);
  log(`the kept load's adaptation ${a.id} (kind ${a.kind ?? "queries"}) is turned off for the base pass`);
  // a whole model's chunks go back to the base model's vectors first
  if (a.kind === "model") await waitVectors(apiClient(url, key), sourceId, log);
}

/** The vector modes asked: lexical search does not embed the query, so the adaptation cannot change it. */
export const modesAfterAdaptation = (modes: readonly DocsMode[]): DocsMode[] => modes.filter((m) => m !== "lexical");

/** One line of what the adaptation did. */
export function adaptationLine(a: Record<string, unknown>): string {
  const pairs = a.pairs as { total: number; training: number; held_out: number } | undefined;
  const held = a.held_out as { base: { ndcg_at_10: number }; adapted: { ndcg_at_10: number } } | undefined;
  const cv = a.cross_validation as { base: { ndcg_at_10: number }; adapted: { ndcg_at_10: number } } | undefined;
  const apply = a.apply as { applied: boolean } | undefined;
  return (
    `adaptation (kind ${String(a.kind ?? "queries")}): ${pairs?.total} pairs (${pairs?.training} trained, ${pairs?.held_out} held out), held-out nDCG@10 ${held?.adapted.ndcg_at_10.toFixed(4)} against ${held?.base.ndcg_at_10.toFixed(4)}, ` +
    `5-fold ${cv?.adapted.ndcg_at_10.toFixed(4)} against ${cv?.base.ndcg_at_10.toFixed(4)}, ${apply?.applied ? "applied" : "not applied"}, ${String(a.took_ms)} ms`
  );
}

/** Adapts the loaded collection, then asks the questions again in the vector modes. */
export async function adaptAndAsk(
  d: { url: string; key: string; collectionId: string; sourceId: string },
  questions: DocsQuestion[],
  modes: readonly DocsMode[],
  pageOf: DocsSet["pageOf"],
  log: (m: string) => void,
  kind: AdaptKind = "queries",
): Promise<AdaptStep> {
  const answer = await adaptCollection(d.url, d.key, d.collectionId, kind, log);
  log(adaptationLine(answer));
  if (kind === "model" && (answer.apply as { applied?: boolean }).applied) await waitVectors(apiClient(d.url, d.key), d.sourceId, log);
  const after: ModeSummary[] = [];
  for (const mode of modesAfterAdaptation(modes)) {
    const s = summarize(mode, await runQuestions(d.url, d.key, d.collectionId, questions, mode, pageOf));
    log(`  ${mode.padEnd(8)} adapted nDCG@10 ${s.by_kind.overall.ndcg_at_10.toFixed(4)}  R@10 ${s.by_kind.overall.recall_at_10.toFixed(4)}`);
    after.push(s);
  }
  return { answer, modes: after };
}
