// Failed-login throttling: 5 failures per email and 20 per client address in 15 minutes. Each
// test logs in from its own loopback address (127.0.0.x) so the per-address counts stay apart.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { startMailCatcher, tokenFromLink, type MailCatcher } from "./helpers/mail.js";
import { PASSWORD, PUBLIC_URL, db, signup, uniqueEmail } from "./helpers/accounts.js";

let s: TestServer;
let mail: MailCatcher;

beforeAll(async () => {
  mail = await startMailCatcher();
  s = await startServer({ SMTP_URL: mail.url, PUBLIC_URL });
});
afterAll(async () => {
  await s?.close();
  await mail?.close();
});

interface Answer {
  status: number;
  body: any;
  retryAfter: string | undefined;
}

/** POST /auth/login from a chosen local address (the server sees it as the client address). */
function loginFrom(localAddress: string, email: string, password: string): Promise<Answer> {
  const url = new URL(`${s.url}/auth/login`);
  const payload = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), retryAfter: res.headers["retry-after"] as string | undefined }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("failed-login throttling", () => {
  it("refuses a sixth attempt for one email within 15 minutes, even with the right password, and says when to retry", async () => {
    const u = await signup(s);
    for (let i = 0; i < 5; i++) expect((await loginFrom("127.0.0.2", u.email, `wrong password ${i}`)).status).toBe(401);
    const sixth = await loginFrom("127.0.0.2", u.email, PASSWORD);
    expect(sixth.status).toBe(429);
    expect(sixth.body.detail).toMatch(/^Too many failed sign-in attempts for this email address\. Try again in 15 minutes \(after \d{4}-\d\d-\d\dT[\d:.]+Z\), or reset your password\.$/);
    expect(Number(sixth.retryAfter)).toBeGreaterThan(800);
    expect(Number(sixth.retryAfter)).toBeLessThanOrEqual(900);
    // Another address does not help: the lock is on the email.
    expect((await loginFrom("127.0.0.3", u.email.toUpperCase(), PASSWORD)).status).toBe(429);
    // Another account from the same address is not affected.
    const other = await signup(s);
    expect((await loginFrom("127.0.0.2", other.email, PASSWORD)).status).toBe(200);

    // Once the oldest failure is older than the window, one more attempt is allowed.
    await db(s).run("UPDATE auth_attempts SET at_ms = at_ms - 15 * 60 * 1000 - 1");
    expect((await loginFrom("127.0.0.2", u.email, PASSWORD)).status).toBe(200);
  });

  it("treats unknown emails exactly like known ones (the lock reveals nothing)", async () => {
    const ghost = uniqueEmail("ghost");
    const first = await loginFrom("127.0.0.4", ghost, "whatever password");
    expect(first.status).toBe(401);
    const u = await signup(s);
    const known = await loginFrom("127.0.0.4", u.email, "whatever password");
    expect(known).toEqual(first); // same status, same detail
    for (let i = 0; i < 4; i++) await loginFrom("127.0.0.4", ghost, "whatever password");
    const locked = await loginFrom("127.0.0.4", ghost, "whatever password");
    expect(locked.status).toBe(429);
    expect(locked.body.detail).toMatch(/for this email address/);
  });

  it("counts parallel guesses exactly: 12 at once give five 401s and seven 429s", async () => {
    const u = await signup(s);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => loginFrom("127.0.0.5", u.email, `guess number ${i}`)));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(7);
  });

  it("limits one client address to 20 failures across emails", async () => {
    for (let i = 0; i < 20; i++) expect((await loginFrom("127.0.0.6", uniqueEmail("spray"), "password spray")).status).toBe(401);
    const u = await signup(s);
    const blocked = await loginFrom("127.0.0.6", u.email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body.detail).toMatch(/^Too many failed sign-in attempts from your network address\. Try again in 15 minutes/);
    expect((await loginFrom("127.0.0.7", u.email, PASSWORD)).status).toBe(200);
  });

  it("forgets an email's failures after a successful sign-in", async () => {
    const u = await signup(s);
    for (let i = 0; i < 4; i++) await loginFrom("127.0.0.8", u.email, "not it at all");
    expect((await loginFrom("127.0.0.8", u.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await loginFrom("127.0.0.8", u.email, "not it at all")).status).toBe(401);
    expect((await loginFrom("127.0.0.8", u.email, PASSWORD)).status).toBe(200);
  });

  it("lets the owner back in through a password reset while locked", async () => {
    const u = await signup(s);
    for (let i = 0; i < 5; i++) await loginFrom("127.0.0.9", u.email, "attacker guess");
    expect((await loginFrom("127.0.0.9", u.email, PASSWORD)).status).toBe(429);
    expect((await s.call("POST", "/auth/forgot-password", { json: { email: u.email } })).status).toBe(202);
    const token = tokenFromLink((await mail.next(u.email, /reset/i)).text, PUBLIC_URL, "reset-password");
    expect((await s.call("POST", "/auth/reset-password", { json: { token, password: "brand new passphrase" } })).status).toBe(200);
    expect((await loginFrom("127.0.0.10", u.email, "brand new passphrase")).status).toBe(200);
  });
});
