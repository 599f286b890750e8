// A short-lived cache of API key rows, each with its tenant's row as read with it, by secret hash,
// so a busy key costs no key lookup on most requests. The tenant row is only trusted by routes
// that read the tenant again in their own statement (search, retrieve: quotas.admitSearch); the
// others read it fresh (auth-checks.ts). A revoked key must still be refused by every API process at once: the process that
// revokes drops it and publishes the hash on Redis (REDIS_URL), and every process drops it on
// receipt. Without Redis, or while the subscription is down (a message may be missed), rows live
// only SHORT_TTL_MS, so a revocation reaches every process within that time by expiry alone.
import { newRedis } from "../../redis-client.js";
import type { Logger } from "pino";
import type { ApiKeyRow, TenantRow } from "../../store/types.js";

/** a key row and its tenant's row as they were read together (ApiKeyStore.findByHashWithTenant) */
export interface CachedKey {
  key: ApiKeyRow;
  tenant: TenantRow | null;
}

export interface KeyCache {
  /** the key row of a secret hash: cached while fresh, else loaded (misses are never cached) */
  find(hash: string, load: () => Promise<CachedKey | null>): Promise<CachedKey | null>;
  /** a key was revoked: dropped here and in every other process */
  revoked(hash: string): Promise<void>;
  close(): Promise<void>;
}

export interface KeyCacheOptions {
  redisUrl: string | null;
  /** Redis key prefix of the deployment (QUEUE_PREFIX) */
  prefix: string;
  log?: Logger;
  /** how long a row lives while revocations arrive through Redis (default 60 s) */
  ttlMs?: number;
}

/** a row's life without a working revocation channel: a revoked key is refused everywhere within it */
export const SHORT_TTL_MS = 500;
const MAX_ENTRIES = 10_000;

export function createKeyCache(o: KeyCacheOptions): KeyCache {
  const rows = new Map<string, { row: CachedKey; until: number }>();
  const channel = `${o.prefix}:api-keys:revoked`;
  const redis = o.redisUrl ? { pub: newRedis(o.redisUrl, { maxRetriesPerRequest: 1 }), sub: newRedis(o.redisUrl) } : null;
  let listening = false;
  if (redis) {
    redis.pub.on("error", () => undefined);
    // rows cached for long were trusted to hear of revocations: they go with the subscription
    const deaf = () => ((listening = false), rows.clear());
    redis.sub.on("error", (err) => {
      if (listening) o.log?.warn({ err }, "API key revocations not received from Redis: keys are cached briefly until it answers");
      deaf();
    });
    redis.sub.on("close", deaf);
    // (re)subscribed: messages may have been missed meanwhile, so nothing cached before is trusted
    redis.sub.on("ready", () => void redis.sub.subscribe(channel).then(() => ((listening = true), rows.clear()), () => undefined));
    redis.sub.on("message", (_ch, hash: string) => rows.delete(hash));
  }
  const ttl = () => (listening ? (o.ttlMs ?? 60_000) : SHORT_TTL_MS);
  return {
    async find(hash, load) {
      const hit = rows.get(hash);
      if (hit && hit.until > Date.now()) return hit.row;
      const row = await load();
      if (!row) return null;
      if (rows.size >= MAX_ENTRIES) rows.delete(rows.keys().next().value!);
      rows.set(hash, { row, until: Date.now() + ttl() });
      return row;
    },
    async revoked(hash) {
      rows.delete(hash);
      await redis?.pub.publish(channel, hash).catch((err: unknown) => o.log?.warn({ err }, "could not publish an API key revocation; other processes refuse the key once their cache expires"));
    },
    async close() {
      if (!redis) return;
      await Promise.all([redis.pub.quit().catch(() => redis.pub.disconnect()), redis.sub.quit().catch(() => redis.sub.disconnect())]);
    },
  };
}
