// How both stores keep an analytics row compactly (the ≤ 200 bytes per search target of issue 29):
// enumerations as small integers, scores in millionths, the first hits as one short text.
import { randomFillSync } from "node:crypto";
import type { FeedbackType, SearchEventRow, SearchKind, SearchOrigin } from "./analytics-types.js";

export const KINDS: readonly SearchKind[] = ["search", "retrieve"];
export const ORIGINS: readonly SearchOrigin[] = ["api", "mcp", "console"];
export const MODES: readonly string[] = ["hybrid", "lexical", "vector"];
export const FEEDBACK_TYPES: readonly FeedbackType[] = ["click", "conversion", "thumbs_up", "thumbs_down"];
/** feedback that says a document answered the query (benchmark cases from traffic) */
export const POSITIVE_FEEDBACK = [0, 1, 2];

export const code = <T extends string>(list: readonly T[], v: T): number => Math.max(0, list.indexOf(v));
export const millionths = (score: number): number => Math.round(score * 1e6);

/** Document ids are "doc_" and hex: the prefix is left out, and an id without it is marked with "!". */
const DOC = "doc_";

/** "ab12...:873000 cd34...:412000": document ids hold no space, and the score is after the last colon */
export function encodeTop(top: SearchEventRow["top"]): string {
  return top.map((t) => `${t.document_id.startsWith(DOC) ? t.document_id.slice(DOC.length) : `!${t.document_id}`}:${millionths(t.score)}`).join(" ");
}

export function decodeTop(text: string): SearchEventRow["top"] {
  if (!text) return [];
  return text.split(" ").map((part) => {
    const i = part.lastIndexOf(":");
    const id = part.slice(0, i);
    return { document_id: id.startsWith("!") ? id.slice(1) : DOC + id, score: Number(part.slice(i + 1)) / 1e6 };
  });
}

/** The values of one search row in the column order both stores insert (scope first, resolved by the store). */
export function eventValues(r: SearchEventRow): unknown[] {
  return [
    r.at,
    r.id,
    code(KINDS, r.kind),
    code(ORIGINS, r.origin),
    code(MODES, r.mode),
    r.query,
    r.filter,
    r.hits,
    r.top_score === null ? null : millionths(r.top_score),
    encodeTop(r.top),
    r.took_ms,
    r.actor,
  ];
}

export const EVENT_COLUMNS = "scope, at, id, kind, origin, mode, query, filter, hits, top_score, top, took_ms, actor";

/** A (tenant, collection) pair as one map key. */
export const scopeKey = (tenantId: string, collectionId: string) => `${tenantId}\u0000${collectionId}`;

/** A logged search's id: 6 bytes of epoch ms, then 6 random bytes, base64url (16 characters). */
export function newSearchKey(ms: number): string {
  const b = Buffer.alloc(12);
  b.writeUIntBE(ms, 0, 6);
  randomFillSync(b, 6, 6);
  return b.toString("base64url");
}

/** The time a search key carries; NaN when it is not one. */
export function atOf(key: string): number {
  if (!/^[A-Za-z0-9_-]{16}$/.test(key)) return Number.NaN;
  return Buffer.from(key.slice(0, 8), "base64url").readUIntBE(0, 6);
}

export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** what one batch adds to the hourly latency histogram (series) and the daily per-query counts */
export interface HourlyDelta {
  scope: number;
  hour: number;
  origin: number;
  took_ms: number;
  searches: number;
  zero_results: number;
  low_score: number;
}
export interface DailyDelta {
  scope: number;
  day: number;
  origin: number;
  query: string;
  searches: number;
  zero_results: number;
  low_score: number;
}

/** A batch summed by (scope, hour, origin, took_ms) and (scope, day, origin, query), as both stores add it to the rollups. */
export function rollupDeltas(rows: { scope: number; row: SearchEventRow }[], lowScore: number): { hourly: HourlyDelta[]; daily: DailyDelta[] } {
  const hourly = new Map<string, HourlyDelta>();
  const daily = new Map<string, DailyDelta>();
  const low = millionths(lowScore);
  for (const { scope, row: r } of rows) {
    const origin = code(ORIGINS, r.origin);
    const zero = r.hits === 0 ? 1 : 0;
    const weak = r.hits > 0 && r.top_score !== null && millionths(r.top_score) < low ? 1 : 0;
    const hour = Math.floor(r.at / HOUR) * HOUR;
    const day = Math.floor(r.at / DAY) * DAY;
    const h = hourly.get(`${scope}|${hour}|${origin}|${r.took_ms}`) ?? { scope, hour, origin, took_ms: r.took_ms, searches: 0, zero_results: 0, low_score: 0 };
    h.searches++;
    h.zero_results += zero;
    h.low_score += weak;
    hourly.set(`${scope}|${hour}|${origin}|${r.took_ms}`, h);
    const dk = `${scope}|${day}|${origin}|${r.query}`;
    const d = daily.get(dk) ?? { scope, day, origin, query: r.query, searches: 0, zero_results: 0, low_score: 0 };
    d.searches++;
    d.zero_results += zero;
    d.low_score += weak;
    daily.set(dk, d);
  }
  return { hourly: [...hourly.values()], daily: [...daily.values()] };
}
