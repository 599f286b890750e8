// Keyset cursors of newest-first lists: the (created_at, id) of the last row, opaque to clients.
import { badRequest } from "./errors.js";

export interface Keyset {
  created_at: string;
  id: string;
}

export const encodeKeyset = (k: Keyset): string => Buffer.from(JSON.stringify([k.created_at, k.id]), "utf8").toString("base64url");

export function decodeKeyset(cursor: string): Keyset {
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string") return { created_at: v[0], id: v[1] };
  } catch {
    /* reported below */
  }
  throw badRequest("cursor is not valid; pass the cursor of the Link header unchanged, or leave it out to start at the first page.");
}

/** Asks for one row more than `limit` to learn whether a next page exists. */
export function page<T extends Keyset>(rows: T[], limit: number): { items: T[]; next: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? encodeKeyset(last) : null };
}
