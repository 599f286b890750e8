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
