// The two error shapes of the API, checked one way everywhere: {"detail": "<sentence>"} for every
// error but 422, and FastAPI's 422 {"detail": [{type, loc, msg, input}]}.
import { expect } from "vitest";
import type { CallResult } from "./call.js";

export type Res = Pick<CallResult, "status" | "body"> & { headers?: Headers };

/** {"detail": "<non-empty sentence>"} with this status, mentioning each of `mentions`. */
export function expectDetail(r: Res, status: number, ...mentions: (string | RegExp)[]): string {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  if (r.headers) expect(r.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  expect(r.body).toBeTypeOf("object");
  expect(Object.keys(r.body ?? {})).toEqual(["detail"]);
  expect(r.body.detail).toBeTypeOf("string");
  expect(r.body.detail.length).toBeGreaterThan(10);
  for (const m of mentions) {
    if (typeof m === "string") expect(r.body.detail).toContain(m);
    else expect(r.body.detail).toMatch(m);
  }
  return r.body.detail;
}

export interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

/**
 * 422 with every item well-formed; with `loc` (e.g. "body", "email"), one item must name exactly
 * that field, so a test proves the detail points at what was wrong.
 */
export function expect422(r: Res, ...loc: (string | number)[]): Issue[] {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  if (r.headers) expect(r.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(["detail"]);
  expect(Array.isArray(r.body.detail)).toBe(true);
  expect(r.body.detail.length).toBeGreaterThan(0);
  for (const item of r.body.detail as Issue[]) {
    expect(Object.keys(item).sort()).toEqual(["input", "loc", "msg", "type"]);
    expect(item.type).toBeTypeOf("string");
    expect(item.msg).toBeTypeOf("string");
    expect(item.msg.length).toBeGreaterThan(0);
    expect(Array.isArray(item.loc)).toBe(true);
    expect(["body", "query", "path", "header"]).toContain(item.loc[0]);
  }
  if (loc.length) {
    const locs = (r.body.detail as Issue[]).map((i) => i.loc);
    expect(locs, `no 422 item at ${JSON.stringify(loc)} in ${JSON.stringify(r.body)}`).toContainEqual(loc);
  }
  return r.body.detail;
}

/** The 422 item whose loc is exactly `loc` (fails the test when there is none). */
export function issueAt(r: Res, ...loc: (string | number)[]): Issue {
  const issues = expect422(r, ...loc);
  return issues.find((i) => JSON.stringify(i.loc) === JSON.stringify(loc))!;
}
