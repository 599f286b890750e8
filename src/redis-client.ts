// ioredis, loaded only by the processes of deployments that set REDIS_URL: importing it costs a
// tenth of a CPU-second at every process start, and a one-machine deployment never connects.
import type { Redis, RedisOptions } from "ioredis";
import { lazyRequire } from "./lazy-require.js";

export type { Redis };

const ioredis = lazyRequire<typeof import("ioredis")>("ioredis");

export function newRedis(url: string, options: RedisOptions = {}): Redis {
  return new (ioredis().Redis)(url, options);
}
