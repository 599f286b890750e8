// The crawl's workers: take queued items in order, a few at a time, never more than the page
// budget can still take. The first unexpected error (a failing sink) stops the crawl.

import { FetchError } from "../errors.js";
import type { CrawlState, QueueItem } from "./state.js";

export class CrawlScheduler {
  private reserved = 0;
  private active = 0;
  private waiters: Array<() => void> = [];
  /** the first error that was not the crawl being stopped; runCrawl rethrows it */
  failure: unknown = null;

  /**
   * process runs one item; stop aborts the crawl (signal is its signal); settled runs after each
   * item, for progress.
   */
  constructor(
    private readonly state: CrawlState,
    private readonly signal: AbortSignal,
    private readonly stop: () => void,
    private readonly process: (item: QueueItem) => Promise<void>,
    private readonly settled: () => void,
  ) {
    signal.addEventListener("abort", () => this.notify(), { once: true });
  }

  /** Wakes workers waiting for the queue or a page slot to change. */
  notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Records a failure unless it is a request aborted because the crawl stopped. */
  noteFailure(err: unknown): void {
    if (this.signal.aborted && err instanceof FetchError) return;
    this.failure = this.failure ?? err;
    this.stop();
  }

  /** Runs one item; `reserves` when it may hand a page over (it holds a page slot meanwhile). */
  async runItem(item: QueueItem, reserves: boolean): Promise<void> {
    if (reserves) this.reserved++;
    this.active++;
    try {
      await this.process(item);
    } catch (err) {
      this.noteFailure(err);
    } finally {
      this.active--;
      if (reserves) this.reserved--;
      this.settled();
      this.notify();
    }
  }

  /** Runs `concurrency` workers until the queue is empty and idle, the budget is spent, or the crawl stops. */
  async run(concurrency: number): Promise<void> {
    await Promise.all(Array.from({ length: concurrency }, () => this.worker()));
  }

  private waitForChange(): Promise<void> {
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private async worker(): Promise<void> {
    const { state } = this;
    const { budget } = state.plan;
    for (;;) {
      if (this.signal.aborted || this.failure || state.counts.pagesThisRun >= budget) return;
      if (state.head >= state.queue.length) {
        if (this.active === 0) return;
        await this.waitForChange();
        continue;
      }
      const item = state.queue[state.head];
      // Reserve a page slot before fetching so parallel workers never overshoot the page limit.
      const reserves = !state.plan.already.has(item.url);
      if (reserves && state.counts.pagesThisRun + this.reserved >= budget) {
        await this.waitForChange(); // reserved > 0 implies active > 0, so a change will come
        continue;
      }
      state.head++;
      await this.runItem(item, reserves);
    }
  }
}
