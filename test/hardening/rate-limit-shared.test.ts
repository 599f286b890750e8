// Rate limits shared by every API process through Redis (REDIS_URL): two apps with the service's
// own limiter on one Redis prefix, as two API processes of a deployment are, spend one budget per
// key and per address. Skipped, saying why, when Redis does not answer.
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerRateLimits } from "../../src/http/protection.js";
import { dropPrefix, REDIS_URL, redisReachable, testPrefix } from "../jobs/redis.js";

const reachable = await redisReachable();
if (!reachable) console.log(`skipping shared rate limits: Redis is not reachable at ${REDIS_URL}`);

const prefix = testPrefix();
const apps: FastifyInstance[] = [];

async function apiProcess(): Promise<FastifyInstance> {
  const app = Fastify();
  await registerRateLimits(app, { perMinute: 4, anonymousPerMinute: 2, redisUrl: REDIS_URL, prefix });
  app.get("/collections", { config: { scope: "search" } }, async () => ({ ok: true }));
  await app.ready();
  apps.push(app);
  return app;
}

beforeAll(async () => {
  if (reachable) await Promise.all([apiProcess(), apiProcess()]);
});
afterAll(async () => {
  for (const a of apps) await a.close();
  if (reachable) await dropPrefix(prefix);
});

const get = (app: FastifyInstance, key?: string, ip = "203.0.113.7") =>
  app.inject({ method: "GET", url: "/collections", remoteAddress: ip, headers: key ? { authorization: `Bearer ${key}` } : {} });

describe.skipIf(!reachable)("rate limits across two API processes sharing Redis", () => {
  it("a key's 4 requests a minute are spent through either process; the 5th is refused by both", async () => {
    const [a, b] = apps;
    const remaining: string[] = [];
    for (const app of [a, b, a, b]) {
      const r = await get(app, "qk_shared_key");
      expect(r.statusCode).toBe(200);
      remaining.push(String(r.headers["ratelimit-remaining"]));
    }
    expect(remaining).toEqual(["3", "2", "1", "0"]);
    for (const app of [a, b]) {
      const over = await get(app, "qk_shared_key");
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    }
    // another key has its own budget
    expect((await get(b, "qk_other_key")).statusCode).toBe(200);
  });

  it("an address without credentials gets 2 requests a minute across both", async () => {
    const [a, b] = apps;
    expect([(await get(a, undefined, "198.51.100.9")).statusCode, (await get(b, undefined, "198.51.100.9")).statusCode]).toEqual([200, 200]);
    expect((await get(a, undefined, "198.51.100.9")).statusCode).toBe(429);
    expect((await get(b, undefined, "198.51.100.10")).statusCode).toBe(200);
  });
});
