// The worker loops' idle waits: a wake ends every sleep in progress, and sleeps that ended by
// their timer leave nothing behind (the old closure chain overflowed the stack after ~10^4 polls).
import { afterEach, expect, it, vi } from "vitest";
import { createSleepers } from "../../src/jobs/sleepers.js";

afterEach(() => {
  vi.useRealTimers();
});

it("wakes every sleeping loop at once", async () => {
  const s = createSleepers();
  const ended: number[] = [];
  const sleeps = [0, 1, 2].map((i) => s.sleep(60_000).then(() => ended.push(i)));
  expect(s.size).toBe(3);
  s.wakeAll();
  await Promise.all(sleeps);
  expect(ended.sort()).toEqual([0, 1, 2]);
  expect(s.size).toBe(0);
});

it("keeps nothing of sleeps that ended by their timer, however many", async () => {
  vi.useFakeTimers();
  const s = createSleepers();
  for (let i = 0; i < 50_000; i++) {
    const p = s.sleep(500);
    vi.advanceTimersByTime(500);
    await p;
  }
  expect(s.size).toBe(0);
  const last = s.sleep(60_000);
  expect(() => s.wakeAll()).not.toThrow();
  await last;
});
