// Emailed tokens and sessions: single use, expiry, tokens of another user or purpose, resend,
// forgot-password without account enumeration, session expiry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, PLATFORM_KEY, type TestServer } from "../kit/index.js";
import { startMailCatcher, tokenFromLink, type MailCatcher } from "./helpers/mail.js";
import { PUBLIC_URL, db, login, signup, uniqueEmail } from "./helpers/accounts.js";

let s: TestServer;
let mail: MailCatcher;

beforeAll(async () => {
  mail = await startMailCatcher();
  s = await startServer({ SMTP_URL: mail.url, PUBLIC_URL }, { listen: false });
});
afterAll(async () => {
  await s?.close();
  await mail?.close();
});

const verifyToken = async (email: string) => tokenFromLink((await mail.next(email, /verify/i)).text, PUBLIC_URL, "verify-email");
const resetToken = async (email: string) => tokenFromLink((await mail.next(email, /reset/i)).text, PUBLIC_URL, "reset-password");
const expire = (email: string, purpose: string) =>
  db(s).run("UPDATE account_tokens SET expires_at = '2000-01-01T00:00:00.000Z' WHERE purpose = ? AND user_id = (SELECT id FROM users WHERE email_key = ?)", purpose, email.toLowerCase());
const ingest = (cookie: string) => s.call("POST", "/data-sources", { cookie, json: { name: "Docs", source_type: "upload" } });

describe("email verification tokens", () => {
  it("refuses an expired link with a detail that says how to get a new one", async () => {
    const u = await signup(s);
    const token = await verifyToken(u.email);
    await expire(u.email, "verify_email");
    const r = await s.call("POST", "/auth/verify", { json: { token } });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatch(/has expired \(links are valid for 24 hours\).*POST \/auth\/resend-verification/);
    expect((await ingest(u.cookie)).status).toBe(403);
  });

  it("sends a fresh link on request; earlier links stop working", async () => {
    const u = await signup(s);
    const first = await verifyToken(u.email);
    const r = await s.call("POST", "/auth/resend-verification", { cookie: u.cookie });
    expect(r.status).toBe(202);
    expect(r.body.detail).toContain(u.email);
    const second = await verifyToken(u.email);
    expect(second).not.toBe(first);
    expect((await s.call("POST", "/auth/verify", { json: { token: first } })).status).toBe(400);
    expect((await s.call("POST", "/auth/verify", { json: { token: second } })).status).toBe(200);
    expect((await ingest(u.cookie)).status).toBe(201);
    const done = await s.call("POST", "/auth/resend-verification", { cookie: u.cookie });
    expect(done.status).toBe(409);
    expect(done.body.detail).toMatch(/already verified/);
  });

  it("verifies only the user the token was sent to", async () => {
    const a = await signup(s);
    const b = await signup(s);
    const tokenA = await verifyToken(a.email);
    // B presents A's token (with B's session): it verifies A, never B.
    const r = await s.call("POST", "/auth/verify", { cookie: b.cookie, json: { token: tokenA } });
    expect(r.status).toBe(200);
    expect(r.body.detail).toContain(a.email);
    expect((await s.call("GET", "/me", { cookie: b.cookie })).body.user.email_verified).toBe(false);
    expect((await ingest(b.cookie)).status).toBe(403);
    expect((await ingest(a.cookie)).status).toBe(201);
  });

  it("does not accept a token of the other kind, or garbage", async () => {
    const u = await signup(s);
    const vt = await verifyToken(u.email);
    await s.call("POST", "/auth/forgot-password", { json: { email: u.email } });
    const rt = await resetToken(u.email);
    expect((await s.call("POST", "/auth/verify", { json: { token: rt } })).status).toBe(400);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: vt, password: "another passphrase" } })).status).toBe(400);
    for (const token of ["x", "qv_" + "A".repeat(43), "%%%%", "a".repeat(500)]) {
      const r = await s.call("POST", "/auth/verify", { json: { token } });
      expect(r.status, token).toBe(400);
      expect(r.body.detail).toMatch(/not valid or has already been used/);
    }
    expect((await s.call("POST", "/auth/verify", { json: { token: "a".repeat(501) } })).status).toBe(422);
    expect((await s.call("POST", "/auth/verify", { json: {} })).status).toBe(422);
    // both real tokens still work for their own purpose
    expect((await s.call("POST", "/auth/verify", { json: { token: vt } })).status).toBe(200);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: rt, password: "another passphrase" } })).status).toBe(200);
  });

  it("lets an API key (or the operator) of a signed-up workspace resend to the owner, without showing the address", async () => {
    const u = await signup(s);
    await verifyToken(u.email);
    const headers = { "x-tenant-id": u.account.tenant.id };
    const key = await s.call("POST", "/api-keys", { key: PLATFORM_KEY, headers, json: { name: "search", scopes: ["search"] } });
    expect(key.status).toBe(201);
    const r = await s.call("POST", "/auth/resend-verification", { key: key.body.key });
    expect(r.status).toBe(202);
    expect(r.body.detail).not.toContain(u.email);
    expect(r.body.detail).toMatch(/workspace owner/);
    const token = await verifyToken(u.email);
    expect((await s.call("POST", "/auth/resend-verification", { key: PLATFORM_KEY, headers })).status).toBe(202);
    await verifyToken(u.email); // the operator's resend retired `token`
    expect((await s.call("POST", "/auth/verify", { json: { token } })).status).toBe(400);
    expect((await s.call("POST", "/auth/resend-verification", {})).status).toBe(401);
  });

  it("sends at most 5 verification emails an hour", async () => {
    const u = await signup(s);
    for (let i = 0; i < 5; i++) expect((await s.call("POST", "/auth/resend-verification", { cookie: u.cookie })).status).toBe(202);
    const r = await s.call("POST", "/auth/resend-verification", { cookie: u.cookie });
    expect(r.status).toBe(429);
    expect(r.body.detail).toMatch(/spam folder/);
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(3500);
  });
});

describe("password reset", () => {
  it("answers forgot-password identically for unknown addresses and sends them nothing", async () => {
    const u = await signup(s);
    const ghost = uniqueEmail("ghost");
    const known = await s.call("POST", "/auth/forgot-password", { json: { email: u.email } });
    const unknown = await s.call("POST", "/auth/forgot-password", { json: { email: ghost } });
    const malformed = await s.call("POST", "/auth/forgot-password", { json: { email: "not an email" } });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(malformed.status).toBe(202);
    expect(unknown.body).toEqual(known.body);
    expect(malformed.body).toEqual(known.body);
    await resetToken(u.email);
    // give a stray message time to arrive before concluding there is none
    await new Promise((r) => setTimeout(r, 300));
    expect(mail.countTo(ghost)).toBe(0);
    expect((await s.call("POST", "/auth/forgot-password", { json: { email: "x".repeat(321) } })).status).toBe(422);
  });

  it("refuses an expired reset link and a superseded one; the newest works once", async () => {
    const u = await signup(s);
    await s.call("POST", "/auth/forgot-password", { json: { email: u.email } });
    const t1 = await resetToken(u.email);
    await expire(u.email, "reset_password");
    const expired = await s.call("POST", "/auth/reset-password", { json: { token: t1, password: "new passphrase 1" } });
    expect(expired.status).toBe(400);
    expect(expired.body.detail).toMatch(/has expired \(links are valid for 1 hour\)/);
    await s.call("POST", "/auth/forgot-password", { json: { email: u.email } });
    const t2 = await resetToken(u.email);
    await s.call("POST", "/auth/forgot-password", { json: { email: u.email } });
    const t3 = await resetToken(u.email);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: t2, password: "new passphrase 2" } })).status).toBe(400);
    const bad = await s.call("POST", "/auth/reset-password", { json: { token: t3, password: "9 chars!!" } });
    expect(bad.status).toBe(422);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: t3, password: "p".repeat(201) } })).status).toBe(422);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: t3, password: "new passphrase 3" } })).status).toBe(200);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: t3, password: "new passphrase 4" } })).status).toBe(400);
    await login(s, u.email, "new passphrase 3");
  });

  it("ends only the sessions of the user who reset, and counts as verifying the address", async () => {
    const a = await signup(s);
    const b = await signup(s);
    await s.call("POST", "/auth/forgot-password", { json: { email: a.email } });
    const t = await resetToken(a.email);
    expect((await s.call("POST", "/auth/reset-password", { json: { token: t, password: "fresh passphrase" } })).status).toBe(200);
    expect((await s.call("GET", "/me", { cookie: a.cookie })).status).toBe(401);
    expect((await s.call("GET", "/me", { cookie: b.cookie })).status).toBe(200);
    const cookie = await login(s, a.email, "fresh passphrase");
    expect((await s.call("GET", "/me", { cookie })).body.user.email_verified).toBe(true);
    expect((await ingest(cookie)).status).toBe(201);
  });

  it("sends at most 5 reset emails per address an hour, still answering 202", async () => {
    const u = await signup(s);
    for (let i = 0; i < 7; i++) expect((await s.call("POST", "/auth/forgot-password", { json: { email: u.email } })).status).toBe(202);
    for (let i = 0; i < 5; i++) await resetToken(u.email);
    await new Promise((r) => setTimeout(r, 300));
    expect(mail.messages.filter((m) => m.to.includes(u.email.toLowerCase()) && /reset/i.test(m.subject))).toHaveLength(5);
  });
});

describe("sessions", () => {
  it("stores only a hash of the session token and expires sessions after SESSION_TTL_DAYS", async () => {
    const u = await signup(s);
    const token = u.cookie.split("=")[1];
    const rows = await db(s).all<{ token_hash: string; expires_at: string }>("SELECT token_hash, expires_at FROM sessions WHERE user_id = ?", u.account.user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
    const days = (Date.parse(rows[0].expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.99);
    expect(days).toBeLessThanOrEqual(14);
    await db(s).run("UPDATE sessions SET expires_at = '2000-01-01T00:00:00.000Z' WHERE user_id = ?", u.account.user.id);
    const r = await s.call("GET", "/me", { cookie: u.cookie });
    expect(r.status).toBe(401);
    expect(await db(s).get("SELECT count(*) AS n FROM sessions WHERE user_id = ?", u.account.user.id)).toEqual({ n: 0 });
  });

  it("answers 401 for a forged or tampered cookie", async () => {
    const u = await signup(s);
    const tampered = u.cookie.slice(0, -2) + (u.cookie.endsWith("AA") ? "BB" : "AA");
    expect((await s.call("GET", "/me", { cookie: tampered })).status).toBe(401);
    expect((await s.call("GET", "/me", { cookie: "service_session=" })).status).toBe(401);
    expect((await s.call("GET", "/me", { cookie: "service_session=%00%ff" })).status).toBe(401);
    expect((await s.call("POST", "/auth/logout", {})).status).toBe(401);
    expect((await s.call("GET", "/me", { cookie: u.cookie })).body.auth_method).toBe("session");
  });
});
