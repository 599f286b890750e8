// Every question through the search API in each mode, judged at page level: a hit counts by the
// page id of its document URL (the set's rule, sets.ts), graded as the question file says (search/metrics.ts: graded
// nDCG@10 with gain = grade, recall@10 over all relevant pages).
import { evaluateQuery, percentile, type QueryMetrics } from "../../ranking-metrics.js";
import { QUESTION_KINDS, KIND_LABELS, type DocsQuestion, type QuestionKind } from "./questions.js";
import type { DocsSet } from "./sets.js";

export const DOCS_MODES = ["lexical", "vector", "hybrid"] as const;
export type DocsMode = (typeof DOCS_MODES)[number];

/** POST /search is the deployment's hybrid; the bench routes run the same service in one mode. */
const ENDPOINT: Record<DocsMode, string> = { lexical: "/bench/lexical-search", vector: "/bench/vector-search", hybrid: "/search" };

export const TOP_K = 10;

export interface QuestionResult {
  id: string;
  kind: QuestionKind;
  mode: DocsMode;
  answered: string;
  pages: string[];
  ndcg: number;
  recall: number;
  mrr: number;
  took_ms: number;
  /** the request's round trip seen by the bench (loopback HTTP, JSON both ways) */
  http_ms: number;
}

export interface Aggregate {
  queries: number;
  ndcg_at_10: number;
  recall_at_10: number;
  mrr_at_10: number;
  hit_rate_at_10: number;
}

export interface ModeSummary {
  mode: DocsMode;
  /** what the service answered with (lexical when the model was unavailable) */
  answered: string;
  by_kind: Record<QuestionKind | "overall", Aggregate>;
  /** round trip per question, one at a time */
  http_ms: { p50: number | null; p95: number | null };
}

async function search(url: string, key: string, mode: DocsMode, collectionId: string, query: string, pageOf: DocsSet["pageOf"]) {
  const t0 = performance.now();
  const res = await fetch(url + ENDPOINT[mode], {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ collection_id: collectionId, query, top_k: TOP_K }),
  });
  const body = (await res.json()) as { results?: { source: string }[]; mode?: string; took_ms?: number };
  if (res.status !== 200) throw new Error(`POST ${ENDPOINT[mode]} (${query}): ${res.status} ${JSON.stringify(body)}`);
  const http = performance.now() - t0;
  return { pages: (body.results ?? []).map((h) => pageOf(h.source)), answered: body.mode ?? mode, took: body.took_ms ?? 0, http };
}

export async function runQuestions(
  url: string,
  key: string,
  collectionId: string,
  questions: DocsQuestion[],
  mode: DocsMode,
  pageOf: DocsSet["pageOf"],
): Promise<QuestionResult[]> {
  const out: QuestionResult[] = [];
  for (const q of questions) {
    const r = await search(url, key, mode, collectionId, q.question, pageOf);
    const m: QueryMetrics = evaluateQuery(r.pages, new Map(Object.entries(q.relevant)), TOP_K);
    out.push({ id: q.id, kind: q.kind, mode, answered: r.answered, pages: r.pages, ndcg: m.ndcg, recall: m.recall, mrr: m.mrr, took_ms: r.took, http_ms: r.http });
  }
  return out;
}

function aggregate(rows: QuestionResult[]): Aggregate {
  const mean = (f: (r: QuestionResult) => number) => (rows.length ? rows.reduce((s, r) => s + f(r), 0) / rows.length : 0);
  return {
    queries: rows.length,
    ndcg_at_10: mean((r) => r.ndcg),
    recall_at_10: mean((r) => r.recall),
    mrr_at_10: mean((r) => r.mrr),
    hit_rate_at_10: mean((r) => (r.recall > 0 ? 1 : 0)),
  };
}

export function summarize(mode: DocsMode, rows: QuestionResult[]): ModeSummary {
  const answered = new Set(rows.map((r) => r.answered));
  const byKind = Object.fromEntries(QUESTION_KINDS.map((k) => [k, aggregate(rows.filter((r) => r.kind === k))])) as ModeSummary["by_kind"];
  byKind.overall = aggregate(rows);
  const http = rows.map((r) => r.http_ms);
  return {
    mode,
    answered: answered.size === 1 ? [...answered][0] : [...answered].join("+"),
    by_kind: byKind,
    http_ms: { p50: percentile(http, 50), p95: percentile(http, 95) },
  };
}

/** Rows: kinds and overall; columns: nDCG@10 and recall@10 of each mode. */
export function renderTable(summaries: ModeSummary[]): string {
  const head = ["kind", "questions", ...summaries.flatMap((s) => [`${s.mode} nDCG@10`, `${s.mode} R@10`])];
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`];
  for (const kind of [...QUESTION_KINDS, "overall"] as const) {
    const label = kind === "overall" ? "**overall**" : KIND_LABELS[kind];
    const n = summaries[0]?.by_kind[kind].queries ?? 0;
    const cells = summaries.flatMap((s) => [s.by_kind[kind].ndcg_at_10.toFixed(3), s.by_kind[kind].recall_at_10.toFixed(3)]);
    lines.push(`| ${label} | ${n} | ${cells.join(" | ")} |`);
  }
  const ms = (x: number | null) => (x === null ? "-" : x.toFixed(1));
  // The modes run in turn, so a later mode's queries find their vectors in the query cache: a
  // mode's model cost shows only when it runs first (`--modes hybrid` for new questions).
  lines.push("", `Over HTTP, one question at a time, ms p50 / p95: ${summaries.map((s) => `${s.mode} ${ms(s.http_ms.p50)} / ${ms(s.http_ms.p95)}`).join(", ")} (a mode after the first finds its query vectors cached).`);
  const odd = summaries.filter((s) => s.answered !== s.mode);
  if (odd.length) lines.push("", ...odd.map((s) => `Note: the ${s.mode} rows were answered in mode '${s.answered}' (model unavailable?).`));
  return `${lines.join("\n")}\n`;
}
