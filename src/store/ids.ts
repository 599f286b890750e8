import { randomBytes } from "node:crypto";

/** Prefixed random ids ("col_3f9a..."): readable in logs, unguessable across tenants. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}

let lastMs = 0;
let seq = 0;

/**
 * Prefixed ids that sort in creation order within a process (milliseconds, then a counter), with
 * a random tail: for rows listed by (time, id), where two rows of the same millisecond must still
 * come out in the order they were written (the audit log).
 */
export function sortableId(prefix: string): string {
  const ms = Date.now();
  seq = ms === lastMs ? seq + 1 : 0;
  lastMs = ms;
  return `${prefix}_${ms.toString(16).padStart(12, "0")}${seq.toString(16).padStart(4, "0")}${randomBytes(6).toString("hex")}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
