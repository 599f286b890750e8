// Gives vectors to chunks that were indexed without them (every ingest job indexes lexically
// first; also model loading or unavailable, or a new embedding profile). Requests coalesce: at
// most one pass runs, and a request during a pass makes it run once more, so no chunk committed
// meanwhile is left behind. Embedding shares the CPU with parsing, so while ingest jobs are
// waiting a batch holds back (up to YIELD_MAX_MS, so a steady stream of uploads cannot starve
// vectors forever): lexical availability comes first, vectors follow.
import type { Logger } from "pino";
import type { Embedder } from "../../embed/types.js";
import type { IngestService } from "./ingest.js";

const YIELD_MAX_MS = 15_000;
const YIELD_POLL_MS = 100;

export function createBackfillScheduler(deps: {
  ingest: IngestService;
  embedder: Embedder | null;
  log: Logger;
  /** ingest work is waiting (the backfill lets it go first); default never */
  ingestPending?: () => Promise<boolean>;
}) {
  const abort = new AbortController();
  const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
  async function letIngestGoFirst(): Promise<void> {
    const until = Date.now() + YIELD_MAX_MS;
    while (deps.ingestPending && Date.now() < until && !abort.signal.aborted && (await deps.ingestPending())) await sleep(YIELD_POLL_MS);
  }
  let running: Promise<void> | null = null;
  let again = false;

  async function pass(): Promise<void> {
    do {
      again = false;
      try {
        const n = await deps.ingest.backfill(abort.signal, 64, letIngestGoFirst);
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
