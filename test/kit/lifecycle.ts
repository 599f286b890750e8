// Suite lifecycles: one server and one tenant per describe block (or file), built in beforeAll and
// closed in afterAll, so a suite declares what it needs in one line.
import { afterAll, beforeAll, expect } from "vitest";
import { PLATFORM_KEY, startServer, type StartOptions, type TestServer } from "./server.js";

export interface UseServerOptions extends StartOptions {
  /** a real loopback socket; without it the suite talks through inject() */
  listen?: boolean;
}

/**
 * A server for the enclosing suite. The returned object is filled in by beforeAll (read it inside
 * hooks and tests only). No socket unless `listen: true`: inject() skips the network stack and a
 * port, and a test that reads `url` without one fails saying so.
 */
export function useServer(env: Record<string, string> = {}, opts: UseServerOptions = {}): TestServer {
  const handle = {} as TestServer;
  beforeAll(async () => {
    const s = await startServer(env, { ...opts, listen: opts.listen ?? false });
    // descriptors, not Object.assign: `url` is a getter that must stay lazy
    Object.defineProperties(handle, Object.getOwnPropertyDescriptors(s));
  });
  afterAll(async () => {
    await handle.close?.();
  });
  return handle;
}

export type KeyScope = "search" | "ingest" | "admin";

export interface TestTenant {
  id: string;
  slug: string;
  adminKey: string;
  /** one fresh key of each scope (admin is a second key beside adminKey) */
  keys: Record<KeyScope, string>;
}

/** A fresh API key of the given scopes in the tenant of `adminKey`. */
export async function makeKey(
  s: TestServer,
  adminKey: string,
  scopes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; key: string; body: any }> {
  const r = await s.call("POST", "/api-keys", { key: adminKey, json: { name: `${scopes.join("+")} key`, scopes, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { id: r.body.id, key: r.body.key, body: r.body };
}

/** A tenant made through the platform key, with a key of every scope. */
export async function createTenant(s: TestServer, name?: string): Promise<TestTenant> {
  const t = await s.tenant(name);
  const keys = {
    search: (await makeKey(s, t.adminKey, ["search"])).key,
    ingest: (await makeKey(s, t.adminKey, ["ingest"])).key,
    admin: (await makeKey(s, t.adminKey, ["admin"])).key,
  };
  return { ...t, keys };
}

/** A tenant for the enclosing suite on a server from useServer (filled in by beforeAll). */
export function useTenant(s: TestServer, name?: string): TestTenant {
  const handle = {} as TestTenant;
  beforeAll(async () => {
    Object.assign(handle, await createTenant(s, name));
  });
  return handle;
}

export { PLATFORM_KEY };
