// Signup and login input: the documented 4xx for bad values, 409 for a taken email, nothing
// half-created, the same 401 for a wrong email and a wrong password, and the settings that
// change signup (REQUIRE_EMAIL_VERIFICATION, PUBLIC_URL https, no SMTP_URL -> outbox).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, PLATFORM_KEY, type TestServer, expect422 as expect422At, type Res } from "../kit/index.js";
import { sessionCookie, setCookieHeader, startMailCatcher, textOf, tokenFromLink, type MailCatcher } from "./helpers/mail.js";
import { PASSWORD, PUBLIC_URL, db, signup, uniqueEmail } from "./helpers/accounts.js";

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

const count = async (table: string) => (await db(s).get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;

// the field a 422 names is always in the body here
const expect422 = (r: Res, field: string) => expect422At(r, "body", field);

describe("signup input", () => {
  it("refuses malformed emails, short and long passwords, long emails and blank workspace names with 422 naming the field", async () => {
    const before = await count("tenants");
    const usersBefore = await count("users");
    const ok = { email: uniqueEmail(), password: PASSWORD, workspace_name: "Valid" };
    for (const email of ["no-at-sign.example.com", "a@b", "a b@example.com", "@example.com", "a@example.", "", "a@@example.com"]) {
      expect422(await s.call("POST", "/auth/signup", { json: { ...ok, email } }), "email");
    }
    const e321 = `${"a".repeat(321 - "@example.com".length)}@example.com`;
    expect(e321).toHaveLength(321);
    expect422(await s.call("POST", "/auth/signup", { json: { ...ok, email: e321 } }), "email");
    expect422(await s.call("POST", "/auth/signup", { json: { ...ok, password: "9 chars!!" } }), "password");
    expect422(await s.call("POST", "/auth/signup", { json: { ...ok, password: "p".repeat(201) } }), "password");
    expect422(await s.call("POST", "/auth/signup", { json: { ...ok, workspace_name: "" } }), "workspace_name");
    expect422(await s.call("POST", "/auth/signup", { json: { ...ok, workspace_name: "w".repeat(201) } }), "workspace_name");
    const blank = await s.call("POST", "/auth/signup", { json: { ...ok, workspace_name: "   " } });
    expect422(blank, "workspace_name");
    expect(blank.body.detail[0].msg).toMatch(/visible character/);
    expect((await s.call("POST", "/auth/signup", { json: { ...ok, role: "owner" } })).status).toBe(422);
    expect(await count("tenants")).toBe(before);
    expect(await count("users")).toBe(usersBefore);
  });

  it("accepts the boundary values: 320-character email, 10- and 200-character passwords", async () => {
    const e320 = `${"b".repeat(320 - `${process.pid}@example.com`.length)}${process.pid}@example.com`;
    expect(e320).toHaveLength(320);
    await signup(s, { email: e320, password: "p".repeat(200) });
    await signup(s, { password: "0123456789" });
  });

  it("answers 409 for a taken email in any letter case, and creates nothing", async () => {
    const u = await signup(s);
    const tenants = await count("tenants");
    const users = await count("users");
    const r = await s.call("POST", "/auth/signup", { json: { email: u.email.toUpperCase(), password: PASSWORD, workspace_name: "Second" } });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/already exists\. Sign in, or reset the password/);
    expect(await count("tenants")).toBe(tenants);
    expect(await count("users")).toBe(users);
  });

  it("lets exactly one of several concurrent signups with one email through; the others leave nothing behind", async () => {
    const email = uniqueEmail("race");
    const tenants = await count("tenants");
    const users = await count("users");
    const sessions = await count("sessions");
    const answers = await Promise.all(
      ["a", "b", "c", "d"].map((w) => s.call("POST", "/auth/signup", { json: { email: w === "a" ? email : email.toUpperCase(), password: PASSWORD, workspace_name: `Race ${w}` } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await count("tenants")).toBe(tenants + 1);
    expect(await count("users")).toBe(users + 1);
    expect(await count("sessions")).toBe(sessions + 1);
  });

  it("derives the slug from the workspace name and makes it unique", async () => {
    const name = `Zephyr Labs ${process.pid} Ünïcode`;
    const a = await signup(s, { workspace: name });
    const b = await signup(s, { workspace: name });
    expect(a.account.tenant.slug).toBe(`zephyr-labs-${process.pid}-unicode`);
    expect(b.account.tenant.slug).toBe(`zephyr-labs-${process.pid}-unicode-2`);
    expect(b.account.tenant.name).toBe(name);
  });
});

describe("login", () => {
  it("validates the body (422) before anything else", async () => {
    expect422(await s.call("POST", "/auth/login", { json: { email: "a@example.com", password: "p".repeat(201) } }), "password");
    expect422(await s.call("POST", "/auth/login", { json: { email: `${"a".repeat(309)}@example.com`, password: PASSWORD } }), "email");
    expect422(await s.call("POST", "/auth/login", { json: { email: "a@example.com" } }), "password");
  });

  it("gives a wrong email and a wrong password the same 401, in similar time", async () => {
    const u = await signup(s);
    const ghost = uniqueEmail("nobody");
    const wrongPw = await s.call("POST", "/auth/login", { json: { email: u.email, password: "not the password" } });
    const wrongEmail = await s.call("POST", "/auth/login", { json: { email: ghost, password: PASSWORD } });
    expect(wrongPw.status).toBe(401);
    expect(wrongEmail.status).toBe(401);
    expect(wrongEmail.body).toEqual(wrongPw.body);
    expect(sessionCookie(wrongPw.headers)).toBeNull();

    const time = async (email: string) => {
      const t0 = performance.now();
      await s.call("POST", "/auth/login", { json: { email, password: "still not it" } });
      return performance.now() - t0;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await time(u.email));
      unknown.push(await time(ghost));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[3];
    // Both pay for one argon2id verification; without the dummy hash the unknown email would
    // answer in a few percent of the time (the verification is ~50 ms, the rest ~1 ms). The bound
    // is loose (a quarter) because a busy machine stretched one side to twice the other.
    expect(median(unknown)).toBeGreaterThan(median(known) / 4);
  });
});

describe("workspaces that need no verification", () => {
  it("lets operator-made tenants ingest at once, and has nothing to resend for them", async () => {
    const t = await s.tenant();
    expect((await s.call("POST", "/data-sources", { key: t.adminKey, json: { name: "Docs", source_type: "upload" } })).status).toBe(201);
    const r = await s.call("POST", "/auth/resend-verification", { key: t.adminKey });
    expect(r.status).toBe(409);
    expect(r.body.detail).toMatch(/created by the operator/);
    // The operator acting inside an unverified signed-up workspace is not held back either.
    const u = await signup(s);
    const headers = { "x-tenant-id": u.account.tenant.id };
    expect((await s.call("POST", "/data-sources", { key: PLATFORM_KEY, headers, json: { name: "Docs", source_type: "upload" } })).status).toBe(201);
  });
});

describe("with REQUIRE_EMAIL_VERIFICATION=false, an https PUBLIC_URL and no SMTP_URL", () => {
  let s2: TestServer;
  beforeAll(async () => {
    s2 = await startServer({ REQUIRE_EMAIL_VERIFICATION: "false", PUBLIC_URL: "https://search.example.org", SESSION_TTL_DAYS: "2" }, { listen: false });
  });
  afterAll(async () => s2?.close());

  it("lets a new workspace ingest before verifying, sets a Secure cookie and writes the mail to DATA_DIR/outbox", async () => {
    const email = uniqueEmail();
    const r = await s2.call("POST", "/auth/signup", { json: { email, password: PASSWORD, workspace_name: "Open" } });
    expect(r.status).toBe(201);
    expect(r.body.user.email_verified).toBe(false);
    const c = setCookieHeader(r.headers)!;
    expect(c).toMatch(/; Secure/);
    expect(c).toMatch(/Max-Age=172800/);
    const cookie = sessionCookie(r.headers)!;
    expect((await s2.call("POST", "/data-sources", { cookie, json: { name: "Docs", source_type: "upload" } })).status).toBe(201);

    const outbox = path.join(s2.dataDir, "outbox");
    let files: string[] = [];
    for (let i = 0; i < 50 && files.length === 0; i++) {
      files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith(".eml")) : [];
      if (!files.length) await new Promise((res) => setTimeout(res, 100));
    }
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-[0-9a-f]+\.eml$/);
    const raw = fs.readFileSync(path.join(outbox, files[0]), "utf8");
    expect(raw).toMatch(new RegExp(`^To: ${email.replace(/\./g, "\\.")}$`, "m"));
    const token = tokenFromLink(textOf(raw), "https://search.example.org", "verify-email");
    expect((await s2.call("POST", "/auth/verify", { json: { token } })).status).toBe(200);
    expect((await s2.call("GET", "/me", { cookie })).body.user.email_verified).toBe(true);
  });
});
