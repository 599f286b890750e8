// The sign-in and sign-up throttle's attempts on PostgreSQL (see sqlite/accounts.ts): a
// reservation counts an attempt against every rule's subject at once, or none of them.
import { transaction, type Pool } from "./db.js";
import type { AccountStore, AttemptReservation, ThrottleRule } from "../account-types.js";
import { newId } from "../ids.js";

/** every reservation sweeps attempts older than a day (longer than any throttle window) */
const ATTEMPT_RETENTION_MS = 86_400_000;

async function reserveAttempt(pool: Pool, rules: ThrottleRule[], nowMs: number, windowMs: number): Promise<AttemptReservation> {
  const since = nowMs - windowMs;
  return transaction(pool, async (c) => {
    // transaction-scoped advisory locks on the subjects (in a fixed order, so two reservations
    // cannot deadlock): parallel requests on any process cannot both read "4 of 5"
    for (const subject of rules.map((r) => r.subject).sort()) await c.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [subject]);
    await c.query("DELETE FROM auth_attempts WHERE at_ms <= $1", [nowMs - ATTEMPT_RETENTION_MS]);
    for (const r of rules) {
      await c.query("DELETE FROM auth_attempts WHERE subject = $1 AND at_ms <= $2", [r.subject, since]);
      const n = (await c.query<{ n: number; oldest: number | null }>("SELECT count(*) AS n, min(at_ms) AS oldest FROM auth_attempts WHERE subject = $1 AND at_ms > $2", [r.subject, since])).rows[0]!;
      if (n.n >= r.limit) return { ok: false as const, subject: r.subject, retryAtMs: (n.oldest ?? nowMs) + windowMs };
    }
    const id = newId("att");
    for (const r of rules) await c.query("INSERT INTO auth_attempts (reservation, subject, at_ms) VALUES ($1, $2, $3)", [id, r.subject, nowMs]);
    return { ok: true as const, id };
  });
}

export function attemptMethods(pool: Pool): Pick<AccountStore, "reserveAttempt" | "releaseAttempt" | "clearAttempts"> {
  return {
    async reserveAttempt(rules, nowMs, windowMs) {
      return reserveAttempt(pool, rules, nowMs, windowMs);
    },
    async releaseAttempt(id) {
      await pool.query("DELETE FROM auth_attempts WHERE reservation = $1", [id]);
    },
    async clearAttempts(subject) {
      await pool.query("DELETE FROM auth_attempts WHERE subject = $1", [subject]);
    },
  };
}
