import { expect } from "vitest";
import type { TestServer } from "../../kit/index.js";
import { sessionCookie, tokenFromLink, type MailCatcher } from "./mail.js";
import { storeSql } from "../../helpers/store-sql.js";

export const PUBLIC_URL = "http://quarry.test:8080";
export const PASSWORD = "correct horse battery";

let n = 0;
export const uniqueEmail = (tag = "user") => `${tag}.${process.pid}.${Date.now()}.${++n}@example.com`;

export interface SignedUp {
  email: string;
  password: string;
  cookie: string;
  account: any;
}

export async function signup(s: TestServer, opts: { email?: string; password?: string; workspace?: string } = {}): Promise<SignedUp> {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? PASSWORD;
  const r = await s.call("POST", "/auth/signup", { json: { email, password, workspace_name: opts.workspace ?? `Workspace ${++n}` } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const cookie = sessionCookie(r.headers);
  expect(cookie).toBeTruthy();
  return { email, password, cookie: cookie!, account: r.body };
}

export async function login(s: TestServer, email: string, password: string): Promise<string> {
  const r = await s.call("POST", "/auth/login", { json: { email, password } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return sessionCookie(r.headers)!;
}

export async function verifyFromMail(s: TestServer, mail: MailCatcher, email: string): Promise<void> {
  const m = await mail.next(email, /verify/i);
  const token = tokenFromLink(m.text, PUBLIC_URL, "verify-email");
  const r = await s.call("POST", "/auth/verify", { json: { token } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

/** raw SQL on the server's database (SQLite or PostgreSQL) */
export const db = (s: TestServer) => storeSql(s.rt.store);
