// Conformance of tenants, API keys, accounts (users, sessions, single-use tokens, the login
// throttle) and the query quota on both stores, including races between two connections (two
// processes) on one database: quotas exact, tokens redeemed once, the throttle never overshot.
import { expect, it } from "vitest";
import { describeEachStore } from "./stores.js";
import { UniqueViolation, type ApiKeyRow, type Store, type TenantRow } from "../../src/store/types.js";
import type { AccountTokenRow, SessionRow, UserRow } from "../../src/store/account-types.js";

const T0 = "2026-01-01T00:00:00.000Z";
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

const tenant = (id: string, over: Partial<TenantRow> = {}): TenantRow => ({ id, name: `Name ${id}`, slug: id, plan: "free", verified: true, created_at: T0, ...over });
const key = (id: string, tenantId: string, over: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id,
  tenant_id: tenantId,
  name: id,
  prefix: id.slice(0, 6),
  hash: `hash-${id}`,
  scopes: ["admin", "search"],
  created_at: T0,
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  ...over,
});
const user = (id: string, tenantId: string, email: string, role: "owner" | "member" = "owner"): UserRow => ({
  id,
  tenant_id: tenantId,
  email,
  email_key: email.toLowerCase(),
  password_hash: "$argon2id$x",
  role,
  email_verified_at: null,
  created_at: T0,
  password_changed_at: null,
});
const session = (id: string, u: UserRow, expiresAt = at(60)): SessionRow => ({ id, token_hash: `sess-${id}`, user_id: u.id, tenant_id: u.tenant_id, created_at: T0, expires_at: expiresAt });
const token = (id: string, u: UserRow, purpose: AccountTokenRow["purpose"], expiresAt = at(60)): AccountTokenRow => ({
  id,
  token_hash: `tok-${id}`,
  user_id: u.id,
  purpose,
  created_at: T0,
  expires_at: expiresAt,
  used_at: null,
});

async function signup(store: Store, id: string, email: string, withToken = true) {
  const u = user(`u-${id}`, id, email);
  const t = withToken ? token(`v-${id}`, u, "verify_email") : null;
  await store.accounts.createSignup({ tenant: tenant(id, { verified: false }), user: u, session: session(`s-${id}`, u), token: t });
  return u;
}

describeEachStore("store: tenants and API keys", (open) => {
  it("creates a tenant with its key atomically and reports a taken slug", async () => {
    const { store } = await open();
    await store.tenants.createWithKey(tenant("t1"), key("k1", "t1"));
    expect(await store.tenants.get("t1")).toEqual(tenant("t1"));
    expect(await store.tenants.slugExists("t1")).toBe(true);
    expect(await store.tenants.slugExists("nope")).toBe(false);
    const err = await store.tenants.createWithKey(tenant("t2", { slug: "t1" }), key("k2", "t2")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UniqueViolation);
    expect((err as UniqueViolation).field).toBe("slug");
    expect(await store.tenants.get("t2")).toBeNull();
    expect(await store.apiKeys.findByHash("hash-k2")).toBeNull(); // nothing of the failed tenant written
    await store.tenants.setPlan("t1", "pro");
    await store.tenants.createWithKey(tenant("t0", { created_at: at(-1) }), key("k0", "t0"));
    expect((await store.tenants.list()).map((t) => [t.id, t.plan])).toEqual([
      ["t0", "free"],
      ["t1", "pro"],
    ]);
  });

  it("lists, finds, touches and revokes keys only within their tenant", async () => {
    const { store } = await open();
    await store.tenants.createWithKey(tenant("t1"), key("k1", "t1"));
    await store.tenants.createWithKey(tenant("t2"), key("k2", "t2"));
    await store.apiKeys.create(key("k3", "t1", { created_at: at(1), scopes: ["search"], expires_at: at(100) }));
    expect((await store.apiKeys.list("t1")).map((k) => k.id)).toEqual(["k3", "k1"]); // newest first
    expect(await store.apiKeys.get("t1", "k3")).toEqual(key("k3", "t1", { created_at: at(1), scopes: ["search"], expires_at: at(100) }));
    expect(await store.apiKeys.get("t2", "k3")).toBeNull();
    expect(await store.apiKeys.revoke("t2", "k3", at(2))).toBe(false); // another tenant's key
    expect(await store.apiKeys.revoke("t1", "k3", at(2))).toBe(true);
    expect(await store.apiKeys.revoke("t1", "k3", at(3))).toBe(false); // already revoked
    await store.apiKeys.touch("k1", at(4));
    expect(await store.apiKeys.findByHash("hash-k3")).toMatchObject({ revoked_at: at(2) });
    expect(await store.apiKeys.findByHash("hash-k1")).toMatchObject({ last_used_at: at(4), scopes: ["admin", "search"] });
    const dup = await store.apiKeys.create(key("k4", "t1", { hash: "hash-k1" })).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(Error); // hashes are unique: one key per secret
  });

  it("counts usage per tenant and period", async () => {
    const { store } = await open();
    await store.tenants.createWithKey(tenant("t1"), key("k1", "t1"));
    expect(await store.usage.counts("t1", "2026-01")).toEqual({ sources: 0, documents: 0, queries: 0 });
    await store.quotas.consumeQueries("t1", "2026-01", 3, null);
    await store.quotas.consumeQueries("t1", "2026-02", 1, null);
    expect(await store.usage.counts("t1", "2026-01")).toEqual({ sources: 0, documents: 0, queries: 3 });
    expect(await store.usage.counts("t2", "2026-01")).toEqual({ sources: 0, documents: 0, queries: 0 });
  });
});

describeEachStore("store: quotas", (open) => {
  it("adds queries up to the limit and never past it", async () => {
    const { store } = await open();
    await store.tenants.createWithKey(tenant("t1"), key("k1", "t1"));
    expect(await store.quotas.consumeQueries("t1", "2026-01", 6, 5)).toEqual({ ok: false, used: 0 }); // first of the period
    expect(await store.quotas.consumeQueries("t1", "2026-01", 4, 5)).toEqual({ ok: true, used: 4 });
    expect(await store.quotas.consumeQueries("t1", "2026-01", 2, 5)).toEqual({ ok: false, used: 4 });
    expect(await store.quotas.consumeQueries("t1", "2026-01", 1, 5)).toEqual({ ok: true, used: 5 });
    expect(await store.quotas.consumeQueries("t1", "2026-01", 0, 5)).toEqual({ ok: true, used: 5 });
    expect(await store.quotas.consumeQueries("t1", "2026-01", 100, null)).toEqual({ ok: true, used: 105 });
  });

  it("stays exact under parallel consumption from two connections", async () => {
    const h = await open();
    const other = await h.reopen();
    await h.store.tenants.createWithKey(tenant("t1"), key("k1", "t1"));
    const N = 60;
    const LIMIT = 41;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) => (i % 2 === 0 ? h.store : other).quotas.consumeQueries("t1", "2026-01", 1, LIMIT)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(LIMIT);
    expect(results.filter((r) => !r.ok).every((r) => r.used === LIMIT)).toBe(true);
    // every accepted consumption saw a distinct count: none counted twice
    expect(new Set(results.filter((r) => r.ok).map((r) => r.used)).size).toBe(LIMIT);
    expect((await other.usage.counts("t1", "2026-01")).queries).toBe(LIMIT);
  });
});

describeEachStore("store: a search's admission (tenant, scope and quota in one call)", (open) => {
  async function tenantWithCollection(store: Store, id: string, plan = "free") {
    await store.tenants.createWithKey(tenant(id, { plan }), key(`k-${id}`, id));
    await store.content.createSource({ id: `s-${id}`, tenant_id: id, name: "S", source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: T0 }, [], null);
    await store.content.createCollection({ id: `c-${id}`, tenant_id: id, name: "C", description: "", settings: { depth: 7 }, created_at: T0, language: "de" }, [`s-${id}`]);
  }

  it("reads the key with its tenant in one call", async () => {
    const { store } = await open();
    await store.tenants.createWithKey(tenant("t1", { plan: "pro" }), key("k1", "t1"));
    expect(await store.apiKeys.findByHashWithTenant("hash-k1")).toEqual({ key: key("k1", "t1"), tenant: tenant("t1", { plan: "pro" }) });
    expect(await store.apiKeys.findByHashWithTenant("hash-none")).toBeNull();
  });

  it("returns the tenant and scope, and counts only when both exist and the plan is the one assumed", async () => {
    const { store } = await open();
    await tenantWithCollection(store, "t1");
    await tenantWithCollection(store, "t2");
    const scope = { settings: { depth: 7 }, data_source_ids: ["s-t1"], language: "de" };
    expect(await store.quotas.admitQueries("t1", "c-t1", "2026-01", 1, "free", 2)).toEqual({ tenant: tenant("t1"), scope, ok: true, used: 1 });
    expect(await store.quotas.admitQueries("t1", "c-t2", "2026-01", 1, "free", 2)).toEqual({ tenant: tenant("t1"), scope: null, ok: false, used: 1 }); // another tenant's collection
    expect(await store.quotas.admitQueries("t9", "c-t1", "2026-01", 1, "free", 2)).toEqual({ tenant: null, scope: null, ok: false, used: 0 });
    expect(await store.quotas.admitQueries("t1", "c-t1", "2026-01", 1, "pro", 9)).toMatchObject({ tenant: tenant("t1"), ok: false }); // plan changed: nothing counted
    expect(await store.quotas.admitQueries("t1", "c-t1", "2026-01", 1, "free", 2)).toMatchObject({ ok: true, used: 2 });
    expect(await store.quotas.admitQueries("t1", "c-t1", "2026-01", 1, "free", 2)).toMatchObject({ ok: false, used: 2 });
    expect(await store.quotas.admitQueries("t1", "c-t1", "2026-01", 1, "free", null)).toMatchObject({ ok: true, used: 3 });
    expect((await store.usage.counts("t1", "2026-01")).queries).toBe(3);
    expect((await store.usage.counts("t2", "2026-01")).queries).toBe(0);
  });

  it("stays exact under parallel admissions from two connections", async () => {
    const h = await open();
    const other = await h.reopen();
    await tenantWithCollection(h.store, "t1");
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? h.store : other).quotas.admitQueries("t1", "c-t1", "2026-01", 1, "free", 17)));
    expect(results.filter((r) => r.ok)).toHaveLength(17);
    expect(new Set(results.filter((r) => r.ok).map((r) => r.used)).size).toBe(17);
    expect(results.filter((r) => !r.ok).every((r) => r.used === 17)).toBe(true);
  });
});

describeEachStore("store: accounts", (open) => {
  it("signs up atomically and names the taken field", async () => {
    const { store } = await open();
    const u = await signup(store, "t1", "Ada@Example.com");
    expect(await store.tenants.get("t1")).toMatchObject({ verified: false });
    expect(await store.accounts.emailTaken("ada@example.com")).toBe(true);
    expect(await store.accounts.findUserByEmail("ada@example.com")).toEqual(u);
    expect(await store.accounts.getUser(u.id)).toEqual(u);
    expect(await store.accounts.ownerOf("t1")).toEqual(u);
    const byEmail = await signup(store, "t2", "ADA@example.com").catch((e: unknown) => e);
    expect(byEmail).toBeInstanceOf(UniqueViolation);
    expect((byEmail as UniqueViolation).field).toBe("email");
    expect(await store.tenants.get("t2")).toBeNull(); // the tenant row rolled back with the user
    const u3 = user("u-x", "t3", "other@example.com");
    const bySlug = await store.accounts
      .createSignup({ tenant: tenant("t3", { slug: "t1" }), user: u3, session: session("s-x", u3), token: null })
      .catch((e: unknown) => e);
    expect((bySlug as UniqueViolation).field).toBe("slug");
    expect(await store.accounts.emailTaken("other@example.com")).toBe(false);
    await store.tenants.createWithKey(tenant("op"), key("k1", "op"));
    expect(await store.accounts.ownerOf("op")).toBeNull(); // operator-made tenant
  });

  it("finds live sessions with user and tenant, and deletes expired ones", async () => {
    const { store } = await open();
    const u = await signup(store, "t1", "ada@example.com", false);
    const ctx = await store.accounts.findSession("sess-s-t1", at(59));
    expect(ctx).toMatchObject({ session: { id: "s-t1" }, user: { id: u.id }, tenant: { id: "t1", verified: false } });
    expect(await store.accounts.findSession("sess-s-t1", at(60))).toBeNull(); // expiry is exclusive
    expect(await store.accounts.findSession("sess-s-t1", at(0))).toBeNull(); // and it was deleted
    await store.accounts.createSession(session("s2", u, at(10)));
    await store.accounts.createSession(session("s3", u, at(30)));
    expect(await store.accounts.deleteExpiredSessions(at(10))).toBe(1);
    expect(await store.accounts.deleteSession("sess-s3")).toBe(true);
    expect(await store.accounts.deleteSession("sess-s3")).toBe(false);
  });

  it("redeems a verification token once, verifies the owner's tenant and retires older tokens", async () => {
    const { store } = await open();
    const u = await signup(store, "t1", "ada@example.com");
    await store.accounts.issueToken(token("v2", u, "verify_email"));
    expect(await store.accounts.verifyEmailWithToken("tok-v-t1", at(1))).toEqual({ status: "invalid" }); // superseded
    expect(await store.accounts.verifyEmailWithToken("tok-v2", at(61))).toEqual({ status: "expired" });
    const r = await store.accounts.verifyEmailWithToken("tok-v2", at(1));
    expect(r).toMatchObject({ status: "ok", user: { id: u.id, email_verified_at: at(1) } });
    expect(await store.tenants.get("t1")).toMatchObject({ verified: true });
    expect(await store.accounts.verifyEmailWithToken("tok-v2", at(2))).toEqual({ status: "invalid" }); // used
    expect(await store.accounts.resetPasswordWithToken("tok-v2", "h", at(2))).toEqual({ status: "invalid" }); // wrong purpose
  });

  it("resets a password: new hash, every session ended, both token kinds retired", async () => {
    const { store } = await open();
    const u = await signup(store, "t1", "ada@example.com");
    await store.accounts.createSession(session("s2", u));
    await store.accounts.issueToken(token("r1", u, "reset_password"));
    const r = await store.accounts.resetPasswordWithToken("tok-r1", "$argon2id$new", at(5));
    expect(r).toMatchObject({ status: "ok", user: { password_hash: "$argon2id$new", password_changed_at: at(5), email_verified_at: at(5) } });
    expect(await store.tenants.get("t1")).toMatchObject({ verified: true });
    expect(await store.accounts.findSession("sess-s-t1", at(6))).toBeNull();
    expect(await store.accounts.findSession("sess-s2", at(6))).toBeNull();
    expect(await store.accounts.verifyEmailWithToken("tok-v-t1", at(6))).toEqual({ status: "invalid" });
    expect(await store.accounts.resetPasswordWithToken("tok-r1", "again", at(6))).toEqual({ status: "invalid" });
  });

  it("redeems a token exactly once when two connections race", async () => {
    const h = await open();
    const other = await h.reopen();
    const u = await signup(h.store, "t1", "ada@example.com", false);
    for (let round = 0; round < 5; round++) {
      await h.store.accounts.issueToken(token(`r${round}`, u, "reset_password"));
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? other : h.store).accounts.resetPasswordWithToken(`tok-r${round}`, `p${i}`, at(1))),
      );
      expect(outcomes.filter((o) => o.status === "ok")).toHaveLength(1);
    }
  });

  it("throttles per subject and window, exactly, across two connections", async () => {
    const h = await open();
    const other = await h.reopen();
    const now = Date.parse(T0);
    const rules = [
      { subject: "email:a", limit: 3 },
      { subject: "addr:1", limit: 5 },
    ];
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : h.store).accounts.reserveAttempt(rules, now + i, 60_000)));
    const ok = all.filter((r) => r.ok);
    expect(ok).toHaveLength(3);
    const refused = all.find((r) => !r.ok);
    expect(refused).toMatchObject({ ok: false, subject: "email:a" });
    // the address has 2 attempts left, reachable with another email
    expect(await h.store.accounts.reserveAttempt([{ subject: "email:b", limit: 3 }, rules[1]!], now + 20, 60_000)).toMatchObject({ ok: true });
    // a released attempt (it succeeded) frees its place on every subject
    await h.store.accounts.releaseAttempt((ok[0] as { id: string }).id);
    expect(await h.store.accounts.reserveAttempt(rules, now + 30, 60_000)).toMatchObject({ ok: true });
    expect(await h.store.accounts.reserveAttempt(rules, now + 31, 60_000)).toMatchObject({ ok: false, subject: "email:a" });
    expect(await h.store.accounts.reserveAttempt([{ subject: "email:c", limit: 3 }, rules[1]!], now + 32, 60_000)).toMatchObject({ ok: true });
    expect(await h.store.accounts.reserveAttempt([{ subject: "email:d", limit: 3 }, rules[1]!], now + 33, 60_000)).toMatchObject({ ok: false, subject: "addr:1" });
    // the window passes
    expect(await h.store.accounts.reserveAttempt(rules, now + 60_031, 60_000)).toMatchObject({ ok: true });
    await h.store.accounts.clearAttempts("email:a");
    await h.store.accounts.clearAttempts("addr:1");
    expect(await h.store.accounts.reserveAttempt(rules, now + 60_032, 60_000)).toMatchObject({ ok: true });
  });

  it("tells when the oldest attempt leaves the window", async () => {
    const { store } = await open();
    const now = Date.parse(T0);
    const rule = [{ subject: "email:a", limit: 2 }];
    await store.accounts.reserveAttempt(rule, now, 60_000);
    await store.accounts.reserveAttempt(rule, now + 1000, 60_000);
    expect(await store.accounts.reserveAttempt(rule, now + 2000, 60_000)).toEqual({ ok: false, subject: "email:a", retryAtMs: now + 60_000 });
  });
});
