import { randomBytes } from "node:crypto";

/** Prefixed random ids ("col_3f9a..."): readable in logs, unguessable across tenants. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString("hex")}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
