// The scope matrix, generated from the routes themselves: every route the app registers is found
// through Fastify's onRoute hook with the scope it declares (config.scope, route-config.ts), and
// gets 401 without credentials and with a bad key, 403 naming its scope for every tenant key
// below it, and neither for a key that holds it. A route that asks for no credentials must be
// listed in PUBLIC below with the reason, so a new route cannot be public by accident.
import { afterAll, describe, expect, it, vi } from "vitest";
import { declaredRoutes, type DeclaredRoute } from "./routes.js";
import { createTenant, expectDetail, LIGHT_ENV, PLATFORM_KEY, startServer } from "../kit/index.js";
import { CONTRACT_ENDPOINTS } from "../foundation/helpers.js";

vi.mock("fastify", async (orig) => (await import("./routes.js")).wrapFastify(orig as never));

/** Routes without a scope, by URL pattern, with the reason they need no credentials. */
const PUBLIC: [pattern: RegExp, reason: string][] = [
  [/^\/(health|livez|readyz)$/, "probes of load balancers and orchestrators"],
  [/^\/metrics$/, "Prometheus scrapes it without credentials, like the probes (routes/system.ts)"],
  [/^\/openapi\.json$/, "the API description is public, like the docs"],
  [/^\/docs(\/.*)?$/, "Swagger UI and its assets"],
  [/^\/auth\/(signup|login|verify|forgot-password|reset-password)$/, "the ways to get credentials in the first place"],
  [/^\/auth\/logout$/, "ends a session cookie; answers 204 even when it is gone"],
  [/^\/assets\/\*$/, "console build files"],
  [/^\/(login|signup|verify-email|forgot-password|reset-password|workspace(\/\*)?)?$/, "console pages (the single-page app signs in by itself)"],
];

/** Routes whose call with a sufficient key is not made here, and why. */
const NOT_CALLED_WITH_SUFFICIENT_KEY: Record<string, string> = {
  "DELETE /auth/workspace": "deletes the caller's own workspace (test/accounts covers it)",
};

// the server is built while the file is collected, so every route becomes a test of its own
const s = await startServer({ ...LIGHT_ENV, RATE_LIMIT_PER_MINUTE: "0", RATE_LIMIT_ANONYMOUS_PER_MINUTE: "10000000" }, { listen: false });
const tenant = await createTenant(s, "Scope Matrix");
afterAll(async () => {
  await s.close();
});

const RANK = { search: 0, ingest: 1, admin: 2, platform: 3 } as const;
const TENANT_KEYS = ["search", "ingest", "admin"] as const;
const label = (r: DeclaredRoute) => `${r.method} ${r.url}`;
// a concrete URL: every :param becomes a made-up id, a wildcard a made-up path
const concrete = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => `${name.replace(/_id$/, "")}_nope`).replace(/\*$/, "x");
const hasBody = (r: DeclaredRoute) => r.method !== "HEAD";

const scoped = declaredRoutes.filter((r) => r.scope != null);
const open = declaredRoutes.filter((r) => r.scope == null);

describe("every route declares a scope or is listed as public", () => {
  it("found the app's routes", () => {
    expect(scoped.length).toBeGreaterThan(50);
  });

  it.each(open.map((r) => [label(r), r] as const))("%s is listed as public", (_l, r) => {
    expect(PUBLIC.find(([p]) => p.test(r.url)), `${label(r)} needs no credentials but is not in PUBLIC`).toBeDefined();
  });

  it("lists no public pattern that matches no route, or a scoped one", () => {
    for (const [pattern, reason] of PUBLIC) {
      expect(open.some((r) => pattern.test(r.url)), `${pattern} (${reason}) matches no public route`).toBe(true);
      expect(scoped.filter((r) => pattern.test(r.url)).map(label), `${pattern} matches scoped routes`).toEqual([]);
    }
  });

  it("declares what the contract says for each of its endpoints", () => {
    for (const [method, p, scope] of CONTRACT_ENDPOINTS) {
      const url = p.replace(/\{(\w+)\}/g, ":$1");
      const route = declaredRoutes.find((r) => r.method === method && r.url === url);
      expect(route, `${method} ${p} is not registered`).toBeDefined();
      const want = scope === "none" || scope === "session" ? null : scope;
      expect(route!.scope ?? null, `${method} ${p}`).toBe(want);
    }
  });
});

describe.each(scoped.map((r) => [label(r), r] as const))("%s", (_l, route) => {
  const scope = route.scope!;
  const call = (key?: string, headers: Record<string, string> = {}) =>
    s.call(route.method, concrete(route.url), { key, headers });

  it("answers 401 without credentials and with a bad key", async () => {
    for (const r of [await call(), await call("qk_thisKeyDoesNotExist0000000000000000000000"), await call(`${PLATFORM_KEY}x`)]) {
      if (hasBody(route)) expectDetail(r, 401);
      else expect(r.status).toBe(401);
    }
    const r = await call();
    expect(r.headers.get("www-authenticate") ?? "", "a Bearer challenge").toMatch(/^Bearer/);
  });

  it(`answers 403 naming '${scope}' to every key below it`, async () => {
    const below = TENANT_KEYS.filter((k) => RANK[k] < RANK[scope]);
    for (const holder of below) {
      const r = await call(tenant.keys[holder]);
      if (hasBody(route)) expectDetail(r, 403, `'${scope}'`);
      else expect(r.status, `${holder} key`).toBe(403);
    }
  });

  const skip = NOT_CALLED_WITH_SUFFICIENT_KEY[`${route.method} ${route.url}`];
  it.skipIf(Boolean(skip))(`lets a key holding '${scope}' (or above) past the guard`, async () => {
    const holders = scope === "platform" ? [] : TENANT_KEYS.filter((k) => RANK[k] >= RANK[scope]);
    const answers = [...(await Promise.all(holders.map((h) => call(tenant.keys[h])))), await call(PLATFORM_KEY, { "x-tenant-id": tenant.id })];
    for (const r of answers) {
      expect([401, 403], JSON.stringify(r.body)).not.toContain(r.status);
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
    }
  });
});
