// The analytics reports (issue 29) from the store's exact counts: per-interval volume, latency
// percentiles and rates (GET /analytics/searches), and per-query counts sorted and paged
// (GET /analytics/queries). Percentiles are exact: the store answers a latency histogram.
import type { BucketCounts, QueryCounts } from "../../store/analytics-types.js";

export const INTERVALS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
export type Interval = keyof typeof INTERVALS;
/** 1970-01-05 was a Monday: weeks start on Mondays (ISO) */
const MONDAY = 4 * 86_400_000;
/** most buckets one series answers */
export const MAX_BUCKETS = 2_000;

export interface SeriesPoint {
  start: string;
  searches: number;
  zero_result_rate: number;
  low_score_rate: number;
  /** null in an interval without searches */
  p50_ms: number | null;
  p95_ms: number | null;
}

/** Where intervals start: multiples of their length, shifted to Mondays for weeks. */
export const bucketOffset = (interval: Interval) => (interval === "week" ? MONDAY : 0);

/** The start of the interval holding `t` (UTC hours, days, ISO weeks). */
export function bucketStart(t: number, interval: Interval): number {
  const len = INTERVALS[interval];
  const offset = bucketOffset(interval);
  return Math.floor((t - offset) / len) * len + offset;
}

/** Nearest-rank percentile of a histogram sorted by value: the smallest value with at least ceil(p·n) at or below it. */
export function percentile(hist: [value: number, count: number][], n: number, p: number): number | null {
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(p * n));
  let seen = 0;
  for (const [v, c] of hist) {
    seen += c;
    if (seen >= rank) return v;
  }
  return hist[hist.length - 1]?.[0] ?? null;
}

/** Every interval from the one holding `from` to the one holding `to - 1`, empty ones included. */
export function series(rows: BucketCounts[], from: number, to: number, interval: Interval): SeriesPoint[] {
  const len = INTERVALS[interval];
  const byStart = new Map<number, BucketCounts[]>();
  for (const r of rows) {
    const start = bucketStart(Number(r.start), interval);
    // appended in place: a tenant-wide report brings one row per scope, bucket and latency
    const rs = byStart.get(start);
    if (rs) rs.push(r);
    else byStart.set(start, [r]);
  }
  const out: SeriesPoint[] = [];
  for (let start = bucketStart(from, interval); start < to; start += len) {
    const rs = byStart.get(start) ?? [];
    const n = rs.reduce((a, r) => a + Number(r.searches), 0);
    const zero = rs.reduce((a, r) => a + Number(r.zero_results), 0);
    const low = rs.reduce((a, r) => a + Number(r.low_score), 0);
    const hist = rs.map((r): [number, number] => [Number(r.took_ms), Number(r.searches)]).sort((a, b) => a[0] - b[0]);
    out.push({
      start: new Date(start).toISOString(),
      searches: n,
      zero_result_rate: n ? zero / n : 0,
      low_score_rate: n ? low / n : 0,
      p50_ms: percentile(hist, n, 0.5),
      p95_ms: percentile(hist, n, 0.95),
    });
  }
  return out;
}

export const QUERY_SORTS = ["count", "zero_results", "low_score", "ctr"] as const;
export type QuerySort = (typeof QUERY_SORTS)[number];

export interface QueryStat {
  query: string;
  count: number;
  zero_results: number;
  low_score: number;
  clicks: number;
  /** share of the query's searches with at least one click */
  ctr: number;
  /** mean 1-based position of the clicks; null without clicks */
  mean_click_position: number | null;
}

export function queryStat(r: QueryCounts): QueryStat {
  const count = Number(r.count);
  const clicks = Number(r.clicks);
  return {
    query: r.query,
    count,
    zero_results: Number(r.zero_results),
    low_score: Number(r.low_score),
    clicks,
    ctr: count ? Number(r.clicked_searches) / count : 0,
    mean_click_position: clicks ? Number(r.position_sum) / clicks : null,
  };
}

/**
 * The report's order: count (most searched first); zero_results and low_score (only queries that
 * had such searches, most first); ctr (least clicked first, among queries that found something,
 * the most searched first among equals). Ties go by query text, so pages never overlap.
 */
export function sortQueries(stats: QueryStat[], sort: QuerySort): QueryStat[] {
  const by = (f: (s: QueryStat) => number) => (a: QueryStat, b: QueryStat) => f(b) - f(a) || b.count - a.count || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0);
  switch (sort) {
    case "count":
      return [...stats].sort(by((s) => s.count));
    case "zero_results":
      return stats.filter((s) => s.zero_results > 0).sort(by((s) => s.zero_results));
    case "low_score":
      return stats.filter((s) => s.low_score > 0).sort(by((s) => s.low_score));
    case "ctr":
      return stats.filter((s) => s.count > s.zero_results).sort(by((s) => -s.ctr));
  }
}

/**
 * [from, to) as the whole units (hours or days) inside it, which the rollups answer, and the
 * edges before and after them, which the raw events answer: exact at any bounds.
 */
export function splitWindow(from: number, to: number, unit: number): { raw: [number, number][]; rolled: [number, number] | null } {
  const a = Math.ceil(from / unit) * unit;
  const b = Math.floor(to / unit) * unit;
  if (a >= b) return { raw: [[from, to]], rolled: null };
  const raw: [number, number][] = [];
  if (from < a) raw.push([from, a]);
  if (b < to) raw.push([b, to]);
  return { raw, rolled: [a, b] };
}

/** Counts of the same query from several parts of a window, summed. */
export function mergeQueryCounts(rows: QueryCounts[]): QueryCounts[] {
  const out = new Map<string, QueryCounts>();
  for (const r of rows) {
    const m = out.get(r.query);
    if (!m) {
      out.set(r.query, { ...r });
      continue;
    }
    for (const k of ["count", "zero_results", "low_score", "clicks", "clicked_searches", "position_sum"] as const) m[k] = Number(m[k]) + Number(r[k]);
  }
  return [...out.values()];
}
