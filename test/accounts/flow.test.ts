// The "done when": sign up over HTTP (inject), verify through the email received over SMTP,
// log out and in, reset the password through the emailed link, hit the query quota, delete the
// workspace, and every credential of it answers 401.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { startServer, PLATFORM_KEY, type TestServer, waitIndexed } from "../kit/index.js";
import { sessionCookie, setCookieHeader, startMailCatcher, tokenFromLink, type MailCatcher } from "./helpers/mail.js";
import { PASSWORD, PUBLIC_URL, db, login, signup, uniqueEmail } from "./helpers/accounts.js";
import { currentPeriod, periodResetsAt } from "../../src/services/tenants/plans.js";
import type { ServiceError } from "../../src/services/errors.js";

let s: TestServer;
let mail: MailCatcher;

beforeAll(async () => {
  mail = await startMailCatcher();
  s = await startServer({ SMTP_URL: mail.url, PUBLIC_URL, MAIL_FROM: "Quarry <accounts@quarry.test>" }, { listen: false });
});
afterAll(async () => {
  await s?.close();
  await mail?.close();
});

describe("account lifecycle", () => {
  it("signs up, verifies by email, logs out and in, resets the password, hits the quota and deletes the workspace", async () => {
    const email = uniqueEmail("Owner"); // mixed case on purpose: emails are case-insensitive
    // 1. Sign up: 201, AccountOut, a session cookie with the documented attributes.
    const r = await s.call("POST", "/auth/signup", { json: { email, password: PASSWORD, workspace_name: "Acme Docs (EU)" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      user: { email, email_verified: false },
      tenant: { name: "Acme Docs (EU)", slug: expect.stringMatching(/^acme-docs-eu(-\d+)?$/) },
      role: "owner",
      scopes: ["admin"],
      plan: "free",
    });
    expect(r.body.user.id).toEqual(expect.any(String));
    expect(r.body.user).not.toHaveProperty("password_hash");
    const setCookie = setCookieHeader(r.headers)!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/Max-Age=1209600/); // SESSION_TTL_DAYS 14
    expect(setCookie).not.toMatch(/Secure/i); // PUBLIC_URL is http
    let cookie = sessionCookie(r.headers)!;
    const slug: string = r.body.tenant.slug;
    const tenantId: string = r.body.tenant.id;

    // 2. The session works on endpoints that take credentials, with the role's scopes.
    const me = await s.call("GET", "/me", { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      tenant: { id: tenantId, slug },
      scopes: ["admin"],
      key: null,
      user: { email, email_verified: false },
      role: "owner",
      plan: "free",
      auth_method: "session",
      usage: { period: currentPeriod(), queries_used: 0, queries_limit: 5000, sources_limit: 5, documents_limit: 1000 },
    });

    // 3. Until verified, calls needing ingest or more are refused; search-level ones work.
    const source = { name: "Docs", source_type: "upload" };
    for (const [path, json] of [["/data-sources", source], ["/api-keys", { name: "ci", scopes: ["search"] }]] as const) {
      const refused = await s.call("POST", path, { cookie, json });
      expect(refused.status, path).toBe(403);
      expect(refused.body.detail).toMatch(/^Verify your email address before/);
    }
    expect((await s.call("GET", "/capabilities", { cookie })).status).toBe(200);

    // The verification email arrives over SMTP with a link to PUBLIC_URL.
    const vmail = await mail.next(email, /verify your email/i);
    const vtoken = tokenFromLink(vmail.text, PUBLIC_URL, "verify-email");
    expect(vmail.text).toContain("24 hours");
    const verified = await s.call("POST", "/auth/verify", { json: { token: vtoken } });
    expect(verified.status).toBe(200);
    expect(verified.body.detail).toMatch(/verified/);
    // single use
    const again = await s.call("POST", "/auth/verify", { json: { token: vtoken } });
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/not valid or has already been used/);

    const created = await s.call("POST", "/data-sources", { cookie, json: source });
    expect(created.status).toBe(201);
    const collection = await s.call("POST", "/collections", { cookie, json: { name: "Main", data_source_ids: [created.body.id] } });
    expect(collection.status).toBe(201);
    const allowed = await s.call("POST", "/api-keys", { cookie, json: { name: "ci", scopes: ["admin"] } });
    expect(allowed.status).toBe(201);
    const apiKey: string = allowed.body.key;
    const searchKey = (await s.call("POST", "/api-keys", { cookie, json: { name: "ui", scopes: ["search"] } })).body.key as string;
    expect((await s.call("GET", "/me", { cookie })).body.user.email_verified).toBe(true);

    // 4. Log out: 204, cookie cleared, the old cookie answers 401; then log in again.
    const out = await s.call("POST", "/auth/logout", { cookie });
    expect(out.status).toBe(204);
    expect(setCookieHeader(out.headers)).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/i);
    const stale = await s.call("GET", "/me", { cookie });
    expect(stale.status).toBe(401);
    expect(stale.body.detail).toMatch(/session has ended/i);
    expect((await s.call("POST", "/auth/logout", { cookie })).status).toBe(401);

    const loggedIn = await s.call("POST", "/auth/login", { json: { email: email.toUpperCase(), password: PASSWORD } });
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.body).toMatchObject({ user: { email, email_verified: true }, tenant: { id: tenantId }, role: "owner", scopes: ["admin"], plan: "free" });
    cookie = sessionCookie(loggedIn.headers)!;
    const second = await login(s, email, PASSWORD); // another browser
    expect((await s.call("GET", "/me", { cookie: second })).status).toBe(200);

    // 5. Reset the password through the emailed link: every session ends, the old password stops working.
    const forgot = await s.call("POST", "/auth/forgot-password", { json: { email: email.toLowerCase() } });
    expect(forgot.status).toBe(202);
    const rmail = await mail.next(email, /reset/i);
    const rtoken = tokenFromLink(rmail.text, PUBLIC_URL, "reset-password");
    const newPassword = "a new and longer passphrase";
    const reset = await s.call("POST", "/auth/reset-password", { json: { token: rtoken, password: newPassword } });
    expect(reset.status).toBe(200);
    expect((await s.call("GET", "/me", { cookie })).status).toBe(401);
    expect((await s.call("GET", "/me", { cookie: second })).status).toBe(401);
    expect((await s.call("POST", "/auth/login", { json: { email, password: PASSWORD } })).status).toBe(401);
    const reused = await s.call("POST", "/auth/reset-password", { json: { token: rtoken, password: "yet another passphrase" } });
    expect(reused.status).toBe(400);
    expect(reused.body.detail).toMatch(/not valid or has already been used/);
    cookie = await login(s, email, newPassword);
    // API keys are not sessions: they keep working after a password reset.
    expect((await s.call("GET", "/me", { key: apiKey })).status).toBe(200);

    // 6. Hit the monthly query limit: fill the counter to 4997 of 5000, then 10 concurrent queries.
    const period = currentPeriod();
    await db(s).run("INSERT INTO usage_counters (tenant_id, period, queries) VALUES (?, ?, 4997) ON CONFLICT (tenant_id, period) DO UPDATE SET queries = 4997", tenantId, period);
    const tenant = (await s.rt.store.tenants.get(tenantId))!;
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => s.rt.quotas.consumeQueries(tenant, 1)));
    expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(3);
    const rejected = results.filter((x): x is PromiseRejectedResult => x.status === "rejected").map((x) => x.reason as ServiceError);
    expect(rejected).toHaveLength(7);
    const resets = periodResetsAt().slice(0, 10);
    for (const e of rejected) {
      expect(e.kind).toBe("quota_exceeded");
      expect(e.message).toBe(`Monthly query limit reached on the free plan: 5000 of 5000 used; resets ${resets}.`);
    }
    const usage = (await s.call("GET", "/me", { key: searchKey })).body.usage;
    expect(usage).toMatchObject({ queries_used: 5000, queries_limit: 5000, period });
    // The same 429 through HTTP: a search-scope key's searches count toward the quota.
    for (const path of ["/search", "/retrieve"]) {
      const over = await s.call("POST", path, { key: searchKey, json: { collection_id: collection.body.id, query: "hello" } });
      expect(over.status, path).toBe(429);
      expect(over.body.detail).toBe(`Monthly query limit reached on the free plan: 5000 of 5000 used; resets ${resets}.`);
    }
    expect((await s.call("GET", "/me", { key: searchKey })).body.usage.queries_used).toBe(5000);

    // 7. Delete the workspace: confirm must be the slug exactly.
    const wrongCase = await s.call("DELETE", "/auth/workspace", { cookie, json: { confirm: slug.toUpperCase() } });
    expect(wrongCase.status).toBe(422);
    expect(wrongCase.body.detail[0]).toMatchObject({ loc: ["body", "confirm"], input: slug.toUpperCase() });
    expect(wrongCase.body.detail[0].msg).toMatch(/case-sensitive/);
    expect((await s.call("DELETE", "/auth/workspace", { key: searchKey, json: { confirm: slug } })).status).toBe(403);
    // content of the workspace: a source with an indexed document (file, chunks, FTS and vector rows)
    const src = await s.call("POST", "/data-sources", { cookie, json: { name: "Notes", source_type: "upload" } });
    expect(src.status).toBe(201);
    const form = new FormData();
    form.append("data_source_id", src.body.id);
    form.append("files", new Blob(["# Notes\n\nThe workspace keeps a note about glaciers."]), "notes.md");
    expect((await s.call("POST", "/documents/upload", { cookie, body: form })).status).toBe(202);
    await waitIndexed(s, apiKey, src.body.id);
    const chunkIds = (await db(s).all<{ id: number }>("SELECT id FROM chunks WHERE tenant_id = ?", tenantId)).map((r) => r.id);
    expect(chunkIds.length).toBeGreaterThan(0);
    const originals = async () => {
      const out: string[] = [];
      for await (const f of s.rt.files.list()) if (f.tenantId === tenantId) out.push(f.documentId);
      return out;
    };
    expect(await originals()).toHaveLength(1);

    const del = await s.call("DELETE", "/auth/workspace", { cookie, json: { confirm: slug } });
    expect(del.status).toBe(204);
    // files and the index entries that cannot cascade are gone with the rows
    expect(await originals()).toEqual([]);
    const sqlite = s.rt.store.kind === "sqlite";
    const left = async (table: string, col: string) => {
      let n = 0;
      for (const id of chunkIds) if (await db(s).get(`SELECT 1 FROM ${table} WHERE ${col} = ?`, sqlite && table.startsWith("vec_") ? BigInt(id) : id)) n++;
      return n;
    };
    expect(await left("chunks", "id")).toBe(0);
    // lexical entries: SQLite's term table; PostgreSQL keeps them on the chunk rows, statistics per tenant
    if (sqlite) expect(await left("chunk_terms", "chunk_id")).toBe(0);
    else expect(await db(s).get("SELECT count(*) AS n FROM lexical_df WHERE tenant_id = ?", tenantId)).toEqual({ n: 0 });
    expect(await left(`vec_${s.rt.activeProfile.index_name!.replace(/^vec_/, "")}`, "chunk_id")).toBe(0);

    for (const cred of [{ cookie }, { key: apiKey }, { key: searchKey }]) {
      const gone = await s.call("GET", "/me", cred);
      expect(gone.status).toBe(401);
    }
    expect((await s.call("POST", "/auth/login", { json: { email, password: newPassword } })).status).toBe(401);
    const tenants = await s.call("GET", "/tenants", { key: PLATFORM_KEY });
    expect(tenants.body.map((t: { id: string }) => t.id)).not.toContain(tenantId);
    for (const table of ["users", "sessions", "account_tokens", "api_keys", "usage_counters"]) {
      const row = (await db(s).get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table === "account_tokens" ? "user_id IN (SELECT id FROM users WHERE tenant_id = ?)" : "tenant_id = ?"}`, tenantId))!;
      expect(row.n, table).toBe(0);
    }
    // The address is free again.
    const again2 = await signup(s, { email });
    expect(again2.account.tenant.id).not.toBe(tenantId);
  });
});
