// The login and reset throttle's attempt log in SQLite: one row per subject per reserved attempt.
import type { DB } from "./db.js";
import type { AccountStore } from "../account-types.js";
import { newId } from "../ids.js";

type ThrottleMethods = Pick<AccountStore, "reserveAttempt" | "releaseAttempt" | "clearAttempts">;

const DAY_MS = 86_400_000;

export function throttleMethods(db: DB): ThrottleMethods {
  const countSince = db.prepare("SELECT count(*) AS n, min(at_ms) AS oldest FROM auth_attempts WHERE subject = ? AND at_ms > ?");
  const insertAttempt = db.prepare("INSERT INTO auth_attempts (reservation, subject, at_ms) VALUES (?, ?, ?)");
  // Each subject is pruned by its own window (login and reset throttles use different ones);
  // anything older than a day is garbage whatever its subject.
  const pruneSubject = db.prepare("DELETE FROM auth_attempts WHERE subject = ? AND at_ms <= ?");
  const pruneAll = db.prepare("DELETE FROM auth_attempts WHERE at_ms <= ?");
  const reserve = db.transaction((rules: { subject: string; limit: number }[], nowMs: number, windowMs: number) => {
    const since = nowMs - windowMs;
    pruneAll.run(nowMs - DAY_MS);
    for (const r of rules) {
      pruneSubject.run(r.subject, since);
      const c = countSince.get(r.subject, since) as { n: number; oldest: number | null };
      if (c.n >= r.limit) return { ok: false as const, subject: r.subject, retryAtMs: (c.oldest ?? nowMs) + windowMs };
    }
    const id = newId("att");
    for (const r of rules) insertAttempt.run(id, r.subject, nowMs);
    return { ok: true as const, id };
  });

  return {
    async reserveAttempt(rules, nowMs, windowMs) {
      // IMMEDIATE takes the write lock before reading, so two processes cannot both read "4 of 5".
      return reserve.immediate(rules, nowMs, windowMs);
    },
    async releaseAttempt(id) {
      db.prepare("DELETE FROM auth_attempts WHERE reservation = ?").run(id);
    },
    async clearAttempts(subject) {
      db.prepare("DELETE FROM auth_attempts WHERE subject = ?").run(subject);
    },
  };
}
