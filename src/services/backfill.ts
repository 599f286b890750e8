// Gives vectors to chunks that were indexed without them (model loading or unavailable, or a new
// embedding profile). Requests coalesce: at most one pass runs, and a request during a pass
// makes it run once more, so no chunk committed meanwhile is left behind.
import type { Logger } from "pino";
import type { Embedder } from "../embed/types.js";
import type { IngestService } from "./ingest.js";

export function createBackfillScheduler(deps: { ingest: IngestService; embedder: Embedder | null; log: Logger }) {
  const abort = new AbortController();
  let running: Promise<void> | null = null;
  let again = false;

  async function pass(): Promise<void> {
    do {
      again = false;
      try {
        const n = await deps.ingest.backfill(abort.signal);
        if (n) deps.log.info({ chunks: n }, "embedded chunks that were indexed without vectors");
      } catch (err) {
        deps.log.error({ err }, "embedding backfill failed; it is retried on the next request");
      }
    } while (again && !abort.signal.aborted);
  }

  return {
    request(): void {
      if (abort.signal.aborted || deps.embedder?.status().state !== "ready") return;
      if (running) {
        again = true;
        return;
      }
      running = pass().finally(() => {
        running = null;
      });
    },
    /** resolves when no pass is running (tests, shutdown) */
    async idle(): Promise<void> {
      while (running) await running;
    },
    async stop(): Promise<void> {
      abort.abort();
      await this.idle();
    },
  };
}

export type BackfillScheduler = ReturnType<typeof createBackfillScheduler>;
