// Redis for the BullMQ tests: REDIS_TEST_URL (default redis://127.0.0.1:6379), a key prefix unique
// to the test run, and removal of every key under it afterwards.
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export const REDIS_URL = process.env.REDIS_TEST_URL ?? "redis://127.0.0.1:6379";

export async function redisReachable(): Promise<boolean> {
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export const testPrefix = () => `quarry-test-${randomUUID().slice(0, 8)}`;

/**
 * The two queue backends a process-level suite runs on: the jobs table, and BullMQ on Redis (null
 * when Redis does not answer, so the suite can skip saying why). A 5 s lock: a killed worker's job
 * is taken over within 10 s instead of a minute.
 */
export const QUEUE_SHAPES: [string, () => Promise<Record<string, string> | null>][] = [
  ["queue in the database", async () => ({})],
  ["BullMQ on Redis", async () => ((await redisReachable()) ? { REDIS_URL, QUEUE_PREFIX: testPrefix(), QUEUE_LOCK_MS: "5000" } : null)],
];

export async function dropPrefix(prefix: string): Promise<void> {
  const r = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}
