// How both stores keep an analytics row compactly (the ≤ 200 bytes per search target of issue 29):
// enumerations as small integers, scores in millionths, the query as the id of its interned text,
// the search key as its time and a 6-byte number, the first hits and the actor as packed bytes.
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

/** id prefixes packed as two bits, their hex tail as bytes; 0 is any other id, kept as UTF-8 */
const PREFIXES = ["", "doc_", "key_", "ses_"] as const;
const HEX_TAIL = /^(?:[0-9a-f]{2}){1,62}$/;
/** a length byte this large says the real length follows in two bytes */
const LONG = 63;

/**
 * An id as a few bytes: a tag (prefix in the top two bits, length below), then the hex tail as
 * bytes ("doc_" and 20 hex digits: 11 bytes, not 24) or, for any other id, its UTF-8 text.
 */
export function packId(id: string): Buffer {
  for (let p = 1; p < PREFIXES.length; p++) {
    const tail = id.slice(PREFIXES[p]!.length);
    if (id.startsWith(PREFIXES[p]!) && HEX_TAIL.test(tail)) return Buffer.concat([Buffer.of((p << 6) | (tail.length / 2)), Buffer.from(tail, "hex")]);
  }
  const raw = Buffer.from(id, "utf8");
  return Buffer.concat([raw.length < LONG ? Buffer.of(raw.length) : Buffer.of(LONG, raw.length >> 8, raw.length & 255), raw]);
}

/** The id packed at `at`, and where the bytes after it start. */
export function unpackId(b: Buffer, at: number): [string, number] {
  const tag = b[at]!;
  const p = tag >> 6;
  let n = tag & LONG;
  let i = at + 1;
  if (p > 0) return [PREFIXES[p] + b.toString("hex", i, i + n), i + n];
  if (n === LONG) {
    n = b.readUInt16BE(i);
    i += 2;
  }
  return [b.toString("utf8", i, i + n), i + n];
}

/**
 * The first hits as bytes: each a packed id and its score, in millionths (4 bytes, signed,
 * big-endian; SQLite) or, with scoreBytes 2, as the calibrated score's 65,535ths clamped to 0..1
 * (PostgreSQL since migration 123; the first hit's exact score is top_score).
 */
export function encodeTop(top: SearchEventRow["top"], scoreBytes: 2 | 4 = 4): Buffer {
  return Buffer.concat(top.flatMap((t) => [packId(t.document_id), scoreBytes === 4 ? int32(millionths(t.score)) : uint16(t.score)]));
}

const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, n)));
  return b;
};
const uint16 = (score: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(Math.round(Math.max(0, Math.min(1, score)) * 65_535));
  return b;
};

export function decodeTop(b: Buffer, scoreBytes: 2 | 4 = 4): SearchEventRow["top"] {
  const out: SearchEventRow["top"] = [];
  for (let i = 0; i < b.length; ) {
    const [document_id, next] = unpackId(b, i);
    out.push({ document_id, score: scoreBytes === 4 ? b.readInt32BE(next) / 1e6 : b.readUInt16BE(next) / 65_535 });
    i = next + scoreBytes;
  }
  return out;
}

/**
 * The values of one search row in the column order both stores insert (EVENT_COLUMNS; scope and
 * query id resolved by the store). No filter is stored as "" so that PostgreSQL rows of the usual
 * kind carry no null bitmap.
 */
export function eventValues(r: SearchEventRow, queryId: number): unknown[] {
  return [
    r.at,
    rndOf(r.id),
    code(KINDS, r.kind),
    code(ORIGINS, r.origin),
    code(MODES, r.mode),
    queryId,
    r.filter ?? "",
    r.hits,
    r.top_score === null ? null : millionths(r.top_score),
    encodeTop(r.top),
    r.took_ms,
    r.actor === null ? null : packId(r.actor),
  ];
}

export const EVENT_COLUMNS = "scope, at, rnd, kind, origin, mode, query_id, filter, hits, top_score, top, took_ms, actor";

/** A (tenant, collection) pair as one map key. */
export const scopeKey = (tenantId: string, collectionId: string) => `${tenantId}\u0000${collectionId}`;

/** the 21-bit parts (eventIdOf) of the keys this process made in its latest millisecond */
const lastKeys = { ms: -1, parts: new Set<number>() };

/**
 * A logged search's id: 6 bytes of epoch ms, then 6 random bytes, base64url (16 characters). Two
 * keys this process makes in one millisecond differ in their first 21 random bits, so their
 * PostgreSQL event ids (eventIdOf) differ too; processes apart share one with odds of 1 in 2^21
 * for two searches of one collection in one millisecond (the second is then not logged).
 */
export function newSearchKey(ms: number): string {
  const b = Buffer.alloc(12);
  b.writeUIntBE(ms, 0, 6);
  if (lastKeys.ms !== ms) lastKeys.parts.clear();
  lastKeys.ms = ms;
  do randomFillSync(b, 6, 6);
  while (lastKeys.parts.has(b.readUIntBE(6, 3) >> 3));
  lastKeys.parts.add(b.readUIntBE(6, 3) >> 3);
  return b.toString("base64url");
}

/**
 * The PostgreSQL search log's key of a search (a decimal int8): its epoch ms * 2^21 plus the first
 * 21 bits of its key's random half, so that time ranges are key ranges and the key is 8 bytes.
 */
export function eventIdOf(key: string): string {
  return ((BigInt(atOf(key)) << 21n) | BigInt(Math.floor(rndOf(key) / 2 ** 27))).toString();
}

/** The random half of a search key as a number (6 bytes: exact in a double and in a bigint column). */
export function rndOf(key: string): number {
  return Buffer.from(key.slice(8), "base64url").readUIntBE(0, 6);
}

/** The time a search key carries; NaN when it is not one. */
export function atOf(key: string): number {
  if (!/^[A-Za-z0-9_-]{16}$/.test(key)) return Number.NaN;
  return Buffer.from(key.slice(0, 8), "base64url").readUIntBE(0, 6);
}

export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/**
 * The oldest day the daily rollup keeps when retention removes events before `before`: the day
 * holding `before` stays whole, so every event kept still has its day's row (and its query text).
 */
export const firstKeptDay = (before: number) => Math.floor(before / DAY) * DAY;

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
  query_id: number;
  searches: number;
  zero_results: number;
  low_score: number;
}

/** A batch summed by (scope, hour, origin, took_ms) and (scope, day, origin, query), as both stores add it to the rollups. */
export function rollupDeltas(rows: { scope: number; queryId: number; row: SearchEventRow }[], lowScore: number): { hourly: HourlyDelta[]; daily: DailyDelta[] } {
  const hourly = new Map<string, HourlyDelta>();
  const daily = new Map<string, DailyDelta>();
  const low = millionths(lowScore);
  for (const { scope, queryId, row: r } of rows) {
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
    const dk = `${scope}|${day}|${origin}|${queryId}`;
    const d = daily.get(dk) ?? { scope, day, origin, query_id: queryId, searches: 0, zero_results: 0, low_score: 0 };
    d.searches++;
    d.zero_results += zero;
    d.low_score += weak;
    daily.set(dk, d);
  }
  return { hourly: [...hourly.values()], daily: [...daily.values()] };
}
