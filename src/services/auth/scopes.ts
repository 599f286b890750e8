import type { Scope } from "../../store/types.js";

// Scopes are hierarchical: each one includes every scope before it.
export const SCOPE_ORDER: readonly Scope[] = ["search", "ingest", "admin", "platform"];

export const level = (s: Scope): number => SCOPE_ORDER.indexOf(s);

export function highestScope(scopes: readonly Scope[]): Scope {
  return scopes.reduce<Scope>((best, s) => (level(s) > level(best) ? s : best), "search");
}

export function allows(held: readonly Scope[], required: Scope): boolean {
  return held.some((s) => level(s) >= level(required));
}
