// The API key cache across processes: two auth services, each with its own key cache, on one
// store, as two API processes of a deployment are. A key used through both is served from their
// caches; revoked through one, it is refused by the other within 1 s: at once through Redis
// pub/sub (REDIS_URL), and by the short expiry alone without Redis.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import type { Store } from "../../src/store/types.js";
import { createAuthService } from "../../src/services/auth/auth.js";
import { createApiKeyService, mintKey } from "../../src/services/auth/api-keys.js";
import { createKeyCache, type KeyCache } from "../../src/services/auth/key-cache.js";
import { dropPrefix, REDIS_URL, redisReachable, testPrefix } from "../jobs/redis.js";

const reachable = await redisReachable();
if (!reachable) console.log(`key revocation through Redis skipped: Redis is not reachable at ${REDIS_URL}`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-keys-"));
const store = openSqliteStore(dir, { vectorIndex: "exact" });
const caches: KeyCache[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  for (const c of caches) await c.close();
  for (const p of prefixes) await dropPrefix(p);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** the store, counting key lookups: a cached key costs none */
function counting(): { store: Store; lookups: () => number } {
  let n = 0;
  const apiKeys = { ...store.apiKeys, findByHashWithTenant: (h: string) => (n++, store.apiKeys.findByHashWithTenant(h)) };
  return { store: { ...store, apiKeys } as Store, lookups: () => n };
}

function apiProcess(redisUrl: string | null, prefix: string) {
  const keyCache = createKeyCache({ redisUrl, prefix });
  caches.push(keyCache);
  const { store: s, lookups } = counting();
  const auth = createAuthService({ store: s, platformApiKey: null, keyCache });
  const apiKeys = createApiKeyService({ store: s, keyCache });
  // 200 or the service error's kind ("unauthorized" for a refused key)
  const status = (secret: string) =>
    auth.authenticate({ authorization: `Bearer ${secret}`, sessionToken: undefined, tenantHeader: undefined }).then(
      () => 200 as const,
      (err: { kind?: string }) => err.kind ?? String(err),
    );
  return { auth, apiKeys, status, lookups };
}

async function newTenantKey(): Promise<{ secret: string; keyId: string; tenant: { id: string } }> {
  const now = new Date().toISOString();
  const tenant = { id: `ten_${Math.random().toString(16).slice(2)}`, name: "Keys", slug: `keys-${Math.random().toString(16).slice(2)}`, plan: "free", verified: true, created_at: now };
  const { secret, row } = mintKey(tenant.id, "k", ["admin"], null);
  await store.tenants.createWithKey(tenant, row);
  return { secret, keyId: row.id, tenant };
}

/** ms until `check` is true, polling every 10 ms, up to `limit` ms */
async function msUntil(check: () => Promise<boolean>, limit: number): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > limit) return Infinity;
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - t0;
}

const shapes: [string, boolean][] = [
  ["through Redis", true],
  ["by expiry alone, without Redis", false],
];

describe.each(shapes)("a revoked key is refused by every API process within 1 s (%s)", (_name, withRedis) => {
  it("is served from each process's cache until revoked through one of them", async (ctx) => {
    if (withRedis && !reachable) return ctx.skip();
    const prefix = testPrefix();
    prefixes.push(prefix);
    const [a, b] = [apiProcess(withRedis ? REDIS_URL : null, prefix), apiProcess(withRedis ? REDIS_URL : null, prefix)];
    if (withRedis) await new Promise((r) => setTimeout(r, 200)); // both subscribed (a fresh process is, long before its first request)
    const { secret, keyId, tenant } = await newTenantKey();
    expect([await a.status(secret), await b.status(secret), await b.status(secret)]).toEqual([200, 200, 200]);
    expect(b.lookups()).toBe(1); // the second request through b was served from its cache

    const principal = { tenant: { ...tenant, name: "Keys", slug: "k", plan: "free", verified: true, created_at: "" }, scopes: ["admin" as const], authMethod: "api_key" as const, key: null, userId: null, role: null, sessionId: null };
    await a.apiKeys.revoke(principal, keyId);
    expect(await a.status(secret)).toBe("unauthorized");
    const ms = await msUntil(async () => (await b.status(secret)) === "unauthorized", 2_000);
    // Through Redis the message beats the expiry by far; by expiry alone the promise is 1 s (the
    // entry lives SHORT_TTL_MS; a loaded 2-core run has delayed this loop's timers by 170 ms)
    expect(ms).toBeLessThan(withRedis ? 200 : 1_000);
  });
});
