// Popular queries as completions (issue 28 item 4, issue 29 item 4): GET /collections/{id}/suggest
// also offers whole queries that people of the tenant searched in that collection and that found
// something. Read from the daily per-query rollup, so a keystroke costs one indexed lookup; the
// playground's searches are left out as the reports leave them out, and a tenant whose logging is
// off gets none (its switch says its searches are not to be used).
import type { AnalyticsStore } from "../../store/analytics-types.js";
import { DAY } from "../../store/analytics-codec.js";
import { normaliseQuery } from "./query-text.js";

/**
 * A query is offered once it found results at least this often, on at least this many days
 * (docs/decisions.md, "Popular queries in suggest"): one person repeating a phrase in one
 * sitting cannot plant it, and a query that found nothing is never offered.
 */
export const POPULAR_MIN_FOUND = 3;
export const POPULAR_MIN_DAYS = 2;
/** the days looked back over */
export const POPULAR_SPAN_DAYS = 30;

export type PopularQuerySource = (tenantId: string, collectionId: string, typed: string, limit: number) => Promise<string[]>;

/** What was typed as the search log keeps queries (normalised), a trailing space kept: "gearbox " completes the next word. */
export function popularPrefix(typed: string): string {
  const norm = normaliseQuery(typed);
  return norm !== "" && /\s$/.test(typed) ? `${norm} ` : norm;
}

export function popularQueries(store: Pick<AnalyticsStore, "loggingEnabled" | "popularQueries">, now: () => number = Date.now): PopularQuerySource {
  return async (tenantId, collectionId, typed, limit) => {
    const prefix = popularPrefix(typed);
    if (prefix === "" || limit <= 0 || !(await store.loggingEnabled(tenantId))) return [];
    const today = Math.floor(now() / DAY) * DAY;
    const f = { tenant_id: tenantId, collection_id: collectionId, from: today - (POPULAR_SPAN_DAYS - 1) * DAY, to: today + DAY, origins: ["api" as const, "mcp" as const] };
    const rows = await store.popularQueries(f, { prefix, minFound: POPULAR_MIN_FOUND, minDays: POPULAR_MIN_DAYS, limit });
    return rows.map((r) => r.query);
  };
}

/**
 * Popular whole queries (what people searched and found) and completions of the word being typed,
 * as one list: popular queries take up to half of it first, the completions follow, and either
 * fills what the other leaves empty. A suggestion met twice (as the search log normalises
 * queries) is kept once.
 */
export function mergeSuggestions(popular: string[], words: string[], limit: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (xs: string[], upTo: number) => {
    for (const x of xs) {
      if (out.length >= upTo) return;
      const k = normaliseQuery(x);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(x);
    }
  };
  add(popular, Math.ceil(limit / 2));
  add(words, limit);
  add(popular, limit);
  return out;
}
