// ioredis, loaded only by the processes of deployments that set REDIS_URL: importing it costs a
// tenth of a CPU-second at every process start, and a one-machine deployment never connects.
// Loaded synchronously (createRequire: ioredis is a CommonJS package, so this is the module an
// import would give), because the callers construct their clients synchronously.
import { createRequire } from "node:module";
import type { Redis, RedisOptions } from "ioredis";

export type { Redis };

export function newRedis(url: string, options: RedisOptions = {}): Redis {
  const { Redis: Client } = createRequire(import.meta.url)("ioredis") as typeof import("ioredis");
  return new Client(url, options);
}
