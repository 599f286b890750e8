// Idle waits of a queue's worker loops: each loop sleeps one poll interval, and an enqueue, a
// recovered job or a stop wakes every loop at once. A set, not a chain of closures: the chain kept
// the closure of every sleep that had ended by its timer, so a process idle for hours built a
// chain deep enough that the next wake overflowed the stack ("Maximum call stack size exceeded"
// when a bench closed its runtime after a long run).
export interface Sleepers {
  /** resolves after `ms`, or sooner when wakeAll() is called */
  sleep(ms: number): Promise<void>;
  /** ends every sleep in progress now */
  wakeAll(): void;
  /** sleeps in progress */
  readonly size: number;
}

export function createSleepers(): Sleepers {
  const waiting = new Set<() => void>();
  return {
    sleep(ms) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiting.add(done);
      });
    },
    wakeAll() {
      for (const done of [...waiting]) done();
    },
    get size() {
      return waiting.size;
    },
  };
}
