// Authentication and authorization over HTTP (inject): 401 for every kind of bad credential, 403
// naming the missing scope, hierarchical scopes across every contract endpoint, the platform key
// with X-Tenant-Id, and the "Done when" script end to end.
import { describe, expect, it } from "vitest";
import { LIGHT_ENV, PLATFORM_KEY, expectDetail, makeKey, useServer, useTenant } from "../kit/index.js";
import { CONTRACT_ENDPOINTS, concrete } from "./helpers.js";
import { storeSql } from "../helpers/store-sql.js";

const s = useServer(LIGHT_ENV);
// its admin key, and a key of each scope: t.keys.search, t.keys.ingest, t.keys.admin
const t = useTenant(s, "Scopes Inc");

describe("401: missing or bad credentials", () => {
  const withAuth = (authorization: string) => s.call("GET", "/me", { headers: { authorization } });

  it("answers 401 with a detail and a Bearer challenge when credentials are missing", async () => {
    const r = await s.call("GET", "/me");
    expectDetail(r, 401, /Bearer/);
    expect(r.headers.get("www-authenticate") ?? "").toMatch(/^Bearer/);
  });

  it.each([
    ["Basic credentials", "Basic dXNlcjpwYXNz"],
    ["a bare key without scheme", "qk_abcdefghijklmnop"],
    ["Bearer without a key", "Bearer "],
    ["Bearer with two tokens", "Bearer one two"],
    ["another scheme", "Token qk_abc"],
  ])("answers 401 for a malformed Authorization header: %s", async (_label, header) => {
    expectDetail(await withAuth(header), 401, /Bearer/);
  });

  it("answers 401 for an unknown key, an almost-right key and a wrong platform key", async () => {
    expectDetail(await withAuth("Bearer qk_thisKeyDoesNotExist0000000000000000000000"), 401);
    expectDetail(await withAuth(`Bearer ${t.keys.search.slice(0, -1)}${t.keys.search.endsWith("A") ? "B" : "A"}`), 401);
    expectDetail(await withAuth(`Bearer ${PLATFORM_KEY}x`), 401);
    expectDetail(await withAuth(`Bearer ${t.adminKey}\u00e9`), 401);
  });

  it("accepts the scheme in any case, as HTTP defines it", async () => {
    expect((await withAuth(`bearer ${t.keys.search}`)).status).toBe(200);
    expect((await withAuth(`BEARER ${t.keys.search}`)).status).toBe(200);
  });

  it("answers 401 for revoked and expired keys, with a detail saying which", async () => {
    const revoked = await makeKey(s, t.adminKey, ["search"]);
    expect((await s.call("DELETE", `/api-keys/${revoked.id}`, { key: t.adminKey })).status).toBe(204);
    expectDetail(await withAuth(`Bearer ${revoked.key}`), 401, /revoked/i);

    const expired = await makeKey(s, t.adminKey, ["admin"], { expires_in_days: 1 });
    await storeSql(s.rt.store).run("UPDATE api_keys SET expires_at = ? WHERE id = ?", "2020-01-01T00:00:00.000Z", expired.id);
    expectDetail(await withAuth(`Bearer ${expired.key}`), 401, /expired/i);
    // an expired admin key cannot even revoke or list keys
    expectDetail(await s.call("GET", "/api-keys", { key: expired.key }), 401);
  });

  it("answers 401 for an unknown session cookie", async () => {
    expectDetail(await s.call("GET", "/me", { cookie: "service_session=not-a-session" }), 401);
  });

  it("answers 401 on every authenticated contract endpoint without credentials", async () => {
    for (const [method, p, scope] of CONTRACT_ENDPOINTS) {
      if (scope === "none" || scope === "session") continue;
      const r = await s.call(method, concrete(p));
      expect(r.status, `${method} ${p}`).toBe(401);
      expect(r.body.detail, `${method} ${p}`).toBeTypeOf("string");
    }
  });

  it("needs no credentials for GET /health", async () => {
    const r = await s.call("GET", "/health");
    expect([200, 503]).toContain(r.status);
  });
});

describe("403 names the missing scope; scopes are hierarchical", () => {
  const rank = { search: 0, ingest: 1, admin: 2, platform: 3 } as const;
  const tenantEndpoints = CONTRACT_ENDPOINTS.filter(
    ([, p, scope]) => scope !== "none" && scope !== "session" && !p.startsWith("/auth/"),
  );

  for (const holder of ["search", "ingest", "admin"] as const) {
    it(`a ${holder} key: 403 naming the scope above it, never 401/403 at or below it`, async () => {
      for (const [method, p, scope] of tenantEndpoints) {
        const r = await s.call(method, concrete(p), { key: t.keys[holder] });
        const label = `${holder} key on ${method} ${p} (needs ${scope})`;
        if (rank[scope as keyof typeof rank] > rank[holder]) {
          expect(r.status, label).toBe(403);
          expect(r.body.detail, label).toContain(`'${scope}'`);
        } else {
          expect([401, 403], `${label}: ${JSON.stringify(r.body)}`).not.toContain(r.status);
          expect(r.status, `${label}: ${JSON.stringify(r.body)}`).not.toBe(500);
        }
      }
    });
  }

  it("lets an ingest key do search things and refuses a search key on an ingest route", async () => {
    expect((await s.call("GET", "/me", { key: t.keys.ingest })).status).toBe(200);
    expect((await s.call("GET", "/capabilities", { key: t.keys.ingest })).status).toBe(200);
    expect((await s.call("GET", "/embedding-profile", { key: t.keys.ingest })).status).toBe(200);
    const r = await s.call("POST", "/collections", { key: t.keys.search, json: { name: "Docs" } });
    expectDetail(r, 403, "'ingest'");
  });

  it("checks the scope before validating the body", async () => {
    expectDetail(await s.call("POST", "/collections", { key: t.keys.search, json: { nonsense: true } }), 403, "ingest");
    expectDetail(await s.call("POST", "/api-keys", { key: t.keys.ingest, json: {} }), 403, "admin");
  });
});

describe("the platform key", () => {
  it("acts inside a tenant with X-Tenant-Id", async () => {
    const headers = { "x-tenant-id": t.id };
    const me = await s.call("GET", "/me", { key: PLATFORM_KEY, headers });
    expect(me.status).toBe(200);
    expect(me.body.tenant.id).toBe(t.id);
    expect(me.body.scopes).toEqual(["platform"]);

    const made = await s.call("POST", "/api-keys", { key: PLATFORM_KEY, headers, json: { name: "by operator", scopes: ["admin"] } });
    expect(made.status).toBe(201);
    const listed = await s.call("GET", "/api-keys", { key: t.adminKey });
    expect(listed.body.map((k: { id: string }) => k.id)).toContain(made.body.id);
    const meAsNew = await s.call("GET", "/me", { key: made.body.key });
    expect(meAsNew.body.tenant.id).toBe(t.id);

    const listedByOperator = await s.call("GET", "/api-keys", { key: PLATFORM_KEY, headers });
    expect(listedByOperator.status).toBe(200);
    expect(listedByOperator.body.map((k: { id: string }) => k.id)).toContain(made.body.id);
  });

  it("answers 400 with a detail on a tenant route without X-Tenant-Id", async () => {
    expectDetail(await s.call("GET", "/me", { key: PLATFORM_KEY }), 400, "X-Tenant-Id");
    expectDetail(await s.call("GET", "/api-keys", { key: PLATFORM_KEY }), 400, "X-Tenant-Id");
    expectDetail(await s.call("POST", "/api-keys", { key: PLATFORM_KEY, json: { name: "x", scopes: ["search"] } }), 400, "X-Tenant-Id");
  });

  it("answers 404 for an X-Tenant-Id that names no tenant", async () => {
    expectDetail(await s.call("GET", "/me", { key: PLATFORM_KEY, headers: { "x-tenant-id": "ten_missing" } }), 404);
  });

  it("does not need X-Tenant-Id on operator routes", async () => {
    expect((await s.call("GET", "/tenants", { key: PLATFORM_KEY })).status).toBe(200);
  });

  it("is the only key X-Tenant-Id works for: a tenant key cannot hop into another tenant", async () => {
    const other = await s.tenant("Hop Target");
    const r = await s.call("GET", "/me", { key: t.adminKey, headers: { "x-tenant-id": other.id } });
    expect([400, 403, 404]).toContain(r.status);
    expect(r.body.detail).toBeTypeOf("string");
    const keysOfOther = await s.call("GET", "/api-keys", { key: t.adminKey, headers: { "x-tenant-id": other.id } });
    expect(keysOfOther.status).not.toBe(200);
    // naming its own tenant is harmless
    expect((await s.call("GET", "/me", { key: t.adminKey, headers: { "x-tenant-id": t.id } })).status).toBe(200);
  });
});

describe("Done when (issue 2)", () => {
  it("tenant -> admin key -> search-only key: 403 naming admin, revoke -> 401, other tenant's key id -> 404", async () => {
    // the operator creates a tenant
    const created = await s.call("POST", "/tenants", { key: PLATFORM_KEY, json: { name: "Done When Ltd" } });
    expect(created.status).toBe(201);
    const adminKey: string = created.body.admin_key.key;

    // its admin key creates a search-only key
    const searchKey = await s.call("POST", "/api-keys", { key: adminKey, json: { name: "search only", scopes: ["search"] } });
    expect(searchKey.status).toBe(201);
    expect(searchKey.body.scopes).toEqual(["search"]);

    // the search key gets 403 on POST /api-keys, and the detail names `admin`
    const denied = await s.call("POST", "/api-keys", { key: searchKey.body.key, json: { name: "more", scopes: ["search"] } });
    expectDetail(denied, 403, "admin");

    // it still works for search-scope calls until revoked
    expect((await s.call("GET", "/me", { key: searchKey.body.key })).status).toBe(200);
    const revoked = await s.call("DELETE", `/api-keys/${searchKey.body.id}`, { key: adminKey });
    expect(revoked.status).toBe(204);
    expectDetail(await s.call("GET", "/me", { key: searchKey.body.key }), 401);

    // another tenant's key id answers 404, like a missing one
    const other = await s.call("POST", "/tenants", { key: PLATFORM_KEY, json: { name: "Someone Else" } });
    const otherKeyId: string = other.body.admin_key.id;
    const foreign = await s.call("DELETE", `/api-keys/${otherKeyId}`, { key: adminKey });
    const missing = await s.call("DELETE", "/api-keys/key_missing", { key: adminKey });
    expectDetail(foreign, 404);
    expect(foreign.body.detail.replace(otherKeyId, "ID")).toBe(missing.body.detail.replace("key_missing", "ID"));
    expect((await s.call("GET", "/me", { key: other.body.admin_key.key })).status).toBe(200);
  });
});
