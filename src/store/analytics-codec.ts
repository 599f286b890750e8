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
