// The search log's write path (issue 29): searches append their event to an in-memory buffer and
// never wait for storage; the buffer is written in batches on an interval and on close (a graceful
// shutdown loses nothing). When the store refuses a batch, its events go back to the front of the
// buffer and are retried at the next flush; past `maxBuffer` unwritten events new ones are dropped,
// and at close whatever the store still refuses is dropped: counted, logged, never an error for the
// search (docs/decisions.md, "Search log when storage fails"). Each tenant's logging switch is cached for a few seconds so that a
// search reads it from memory; a change made here applies at once, one made by another process
// within SWITCH_TTL_MS.
import type { Logger } from "pino";
import type { Counter } from "prom-client";
import type { AnalyticsStore, SearchEventRow } from "../../store/analytics-types.js";

/** how long a tenant's logging switch is trusted from memory */
export const SWITCH_TTL_MS = 10_000;
/** a buffer this long is written at once rather than at the next tick */
const FLUSH_AT = 2_000;
/** past this many unwritten events (storage down), new ones are dropped and counted: about 100 MB */
const MAX_BUFFER = 200_000;

export interface SearchLogOptions {
  store: { analytics: AnalyticsStore };
  log: Logger;
  /** how often the buffer is written (ms) */
  flushMs: number;
  /** the low-score line the rollups count with (ANALYTICS_LOW_SCORE) */
  lowScore: number;
  now?: () => number;
  /** most unwritten events kept while the store refuses writes (MAX_BUFFER) */
  maxBuffer?: number;
  /** refused batches and dropped events, for /metrics */
  counters?: { failures: Counter; dropped: Counter };
}

export function createSearchLog(o: SearchLogOptions) {
  const now = o.now ?? Date.now;
  let buffer: SearchEventRow[] = [];
  let writing: Promise<void> = Promise.resolve();
  const maxBuffer = o.maxBuffer ?? MAX_BUFFER;
  let dropped = 0;
  const drop = (n: number) => void ((dropped += n), o.counters?.dropped.inc(n));
  const switches = new Map<string, { enabled: boolean; at: number }>();

  const write = async (batch: SearchEventRow[]) => {
    try {
      await o.store.analytics.recordSearches(batch, o.lowScore);
    } catch (err) {
      // kept for the next tick unless the buffer is already full: analytics must never take search down
      o.counters?.failures.inc();
      const kept = Math.max(0, Math.min(batch.length, maxBuffer - buffer.length));
      buffer = batch.slice(0, kept).concat(buffer);
      if (kept < batch.length) drop(batch.length - kept);
      o.log.error({ err, events: batch.length, kept, dropped_total: dropped }, "could not write the search log; retrying at the next flush");
    }
  };
  /** writes what is buffered now; flushes never overlap */
  const flush = (): Promise<void> => {
    writing = writing.then(() => {
      if (buffer.length === 0) return;
      const batch = buffer;
      buffer = [];
      return write(batch);
    });
    return writing;
  };
  const timer = setInterval(() => void flush(), o.flushMs);
  timer.unref();

  const readSwitch = async (tenantId: string): Promise<boolean> => {
    const enabled = await o.store.analytics.loggingEnabled(tenantId);
    switches.set(tenantId, { enabled, at: now() });
    return enabled;
  };

  return {
    /** whether this tenant's searches are logged (memory first; a stale answer is refreshed behind the search) */
    async enabled(tenantId: string): Promise<boolean> {
      const s = switches.get(tenantId);
      if (!s) return readSwitch(tenantId);
      if (now() - s.at > SWITCH_TTL_MS) void readSwitch(tenantId).catch((err: unknown) => o.log.warn({ err }, "could not read the analytics switch"));
      return s.enabled;
    },
    async setEnabled(tenantId: string, enabled: boolean): Promise<void> {
      await o.store.analytics.setLogging(tenantId, enabled);
      switches.set(tenantId, { enabled, at: now() });
    },
    /** appends one event; never waits on storage */
    record(row: SearchEventRow): void {
      if (buffer.length >= maxBuffer) {
        drop(1);
        return;
      }
      buffer.push(row);
      if (buffer.length >= FLUSH_AT) void flush();
    },
    /** an event of this tenant still waiting to be written */
    pending(tenantId: string, id: string): boolean {
      return buffer.some((r) => r.id === id && r.tenant_id === tenantId);
    },
    flush,
    settled: (): Promise<void> => writing, // once the write in progress (if any) ends: its events stored or buffered again
    /** events dropped because storage was unavailable for too long */
    dropped: () => dropped,
    /** stops the timer and writes what is left; what the store still refuses is dropped (and logged) */
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
      if (buffer.length === 0) return;
      o.log.error({ events: buffer.length }, "the search log could not be written before shutdown; these events are lost");
      drop(buffer.length);
      buffer = [];
    },
  };
}

export type SearchLog = ReturnType<typeof createSearchLog>;
