// Hostile and careless input over real HTTP: oversized and malformed JSON, wrong content types,
// unknown fields, wrong types, out-of-range and huge numbers, empty strings, NUL bytes, deep
// nesting, very long headers and URLs. Each gets a clear 4xx (never a 500), and afterwards the
// service still answers.
import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { LIGHT_ENV, PLATFORM_KEY, expect422, expectDetail, issueAt, rawRequest, useServer, type Res } from "../kit/index.js";

// a real socket: what fetch sends and raw framing (huge headers, cut connections) are the point
const s = useServer(LIGHT_ENV, { listen: true });
let admin: string;
const statuses: { label: string; status: number }[] = [];

beforeAll(async () => {
  admin = (await s.tenant("Bad Input Co")).adminKey;
});

/** POST a raw body to /api-keys as the admin; records the status for the batch summary. */
async function post(label: string, body: string | Buffer, contentType: string | null = "application/json", p = "/api-keys"): Promise<Res> {
  const headers: Record<string, string> = {};
  if (contentType !== null) headers["content-type"] = contentType;
  const r = await s.call("POST", p, { key: p === "/tenants" ? PLATFORM_KEY : admin, body: body as BodyInit, headers });
  statuses.push({ label, status: r.status });
  expect(r.status, `${label}: ${JSON.stringify(r.body).slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(r.status, label).toBeLessThan(500);
  expect(r.headers.get("content-type") ?? "", label).toMatch(/^application\/json/);
  return r;
}
const json = (v: unknown) => JSON.stringify(v);

describe("size", () => {
  it("answers a JSON body over 4 MB with 413 and a detail", async () => {
    const big = json({ name: "x".repeat(4 * 1024 * 1024 + 10), scopes: ["search"] });
    expectDetail(await post("5 MB body", big), 413, /4 MB/);
    const array = json({ name: "a", scopes: Array.from({ length: 600_000 }, () => "search") });
    expect(array.length).toBeGreaterThan(4 * 1024 * 1024);
    expectDetail(await post("huge array", array), 413);
  });

  it("answers a body just under the limit by validating it (422), not with 413", async () => {
    const r = await post("3.5 MB body", json({ name: "x".repeat(3_500_000), scopes: ["search"] }));
    expect(issueAt(r, "body", "name").type).toBe("string_too_long");
  });
});

describe("malformed JSON", () => {
  it.each([
    ["unterminated object", '{"name": "x",'],
    ["trailing comma", '{"name": "x", "scopes": ["search"],}'],
    ["single quotes", "{'name': 'x'}"],
    ["bare word", "hello"],
    ["two documents", '{"name":"a","scopes":["search"]}{"name":"b"}'],
    ["comment", '{"name": "x" /* c */, "scopes": ["search"]}'],
    ["NaN literal", '{"name":"x","scopes":["search"],"expires_in_days":NaN}'],
    ["raw control character", '{"name":"a\u0001b","scopes":["search"]}'],
  ])("%s: 422 json_invalid at ['body']", async (label, body) => {
    const r = await post(label, body);
    expect(issueAt(r, "body").type).toBe("json_invalid");
  });

  it("answers binary garbage declared as JSON with a 4xx", async () => {
    const r = await post("binary", Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b, 0x22, 0x80, 0x81]));
    expect(r.status).toBe(422);
  });

  it("refuses __proto__ and constructor.prototype keys without polluting the process", async () => {
    for (const body of [
      '{"name":"p","scopes":["search"],"__proto__":{"polluted":true}}',
      '{"name":"p","scopes":["search"],"constructor":{"prototype":{"polluted":true}}}',
    ]) {
      const r = await post("prototype key", body);
      expect([400, 422]).toContain(r.status);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("content types", () => {
  it.each([
    ["text/plain", "hello"],
    ["text/plain", json({ name: "x", scopes: ["search"] })],
    ["application/x-www-form-urlencoded", "name=x&scopes=search"],
    ["application/xml", "<key><name>x</name></key>"],
    ["multipart/form-data; boundary=zzz", "--zzz\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--zzz--\r\n"],
    ["image/png", "\u0089PNG"],
    ["@@@", "{}"],
  ])("%s on a JSON route: 415 or 422 with a clear answer", async (ct, body) => {
    const r = await post(`content-type ${ct}`, body, ct);
    expect([400, 415, 422]).toContain(r.status);
    if (r.status === 422) expect422(r);
    else expectDetail(r, r.status);
  });

  it("creates nothing through a non-JSON content type", async () => {
    const before = (await s.call("GET", "/api-keys", { key: admin })).body.length;
    await post("form create", "name=x&scopes=search", "application/x-www-form-urlencoded");
    await post("text create", json({ name: "x", scopes: ["search"] }), "text/plain");
    expect((await s.call("GET", "/api-keys", { key: admin })).body.length).toBe(before);
  });

  it("accepts application/json with a charset parameter", async () => {
    const r = await s.call("POST", "/api-keys", { key: admin, body: json({ name: "cs", scopes: ["search"] }), headers: { "content-type": "application/json; charset=utf-8" } });
    expect(r.status).toBe(201);
  });
});

describe("field values", () => {
  it.each([
    ["unknown field", { name: "x", scopes: ["search"], admin: true }, ["body", "admin"], "extra_forbidden"],
    ["name as number", { name: 1, scopes: ["search"] }, ["body", "name"], "string_type"],
    ["name as object", { name: { a: 1 }, scopes: ["search"] }, ["body", "name"], "string_type"],
    ["name as array", { name: ["x"], scopes: ["search"] }, ["body", "name"], "string_type"],
    ["name as boolean", { name: true, scopes: ["search"] }, ["body", "name"], "string_type"],
    ["empty name", { name: "", scopes: ["search"] }, ["body", "name"], "string_too_short"],
    ["scopes as object", { name: "x", scopes: { 0: "search" } }, ["body", "scopes"], "list_type"],
    ["expiry below range", { name: "x", scopes: ["search"], expires_in_days: 0 }, ["body", "expires_in_days"], "greater_than_equal"],
    ["expiry above range", { name: "x", scopes: ["search"], expires_in_days: 3651 }, ["body", "expires_in_days"], "less_than_equal"],
    ["expiry negative", { name: "x", scopes: ["search"], expires_in_days: -1 }, ["body", "expires_in_days"], "greater_than_equal"],
    ["expiry fractional", { name: "x", scopes: ["search"], expires_in_days: 2.5 }, ["body", "expires_in_days"], "int_type"],
    ["expiry boolean", { name: "x", scopes: ["search"], expires_in_days: true }, ["body", "expires_in_days"], "int_type"],
  ] as [string, unknown, (string | number)[], string][])("%s: 422 at the field", async (label, body, loc, type) => {
    expect(issueAt(await post(label, json(body)), ...loc).type).toBe(type);
  });

  it.each([
    ["1e400 (Infinity)", "1e400"],
    ["a 23-digit integer", "99999999999999999999999"],
    ["2^53 + 1", "9007199254740993"],
    ["-1e400", "-1e400"],
    ["a 400-digit integer", "9".repeat(400)],
  ])("huge number %s: 422, never accepted or 500", async (label, n) => {
    const r = await post(`huge ${label}`, `{"name":"h","scopes":["search"],"expires_in_days":${n}}`);
    const issue = issueAt(r, "body", "expires_in_days");
    expect(["less_than_equal", "greater_than_equal", "int_type"]).toContain(issue.type);
  });

  it("refuses NUL characters in strings and keys with a 422 naming the field", async () => {
    const inName = await post("NUL in name", json({ name: "a\u0000b", scopes: ["search"] }));
    expect(issueAt(inName, "body", "name").type).toBe("string_nul_character");
    const inScope = await post("NUL in array item", json({ name: "a", scopes: ["search\u0000"] }));
    expect(expect422(inScope).some((i) => JSON.stringify(i.loc) === JSON.stringify(["body", "scopes", 0]))).toBe(true);
    const inTenant = await post("NUL in tenant name", json({ name: "Acme\u0000Corp" }), "application/json", "/tenants");
    expect(issueAt(inTenant, "body", "name").type).toBe("string_nul_character");
    const inKey = await post("NUL in key", json({ name: "a", scopes: ["search"], "x\u0000y": 1 }));
    expect(expect422(inKey).some((i) => i.loc[0] === "body" && String(i.loc[1]).includes("\u0000"))).toBe(true);
    // nothing was stored
    const tenants = await s.call("GET", "/tenants", { key: PLATFORM_KEY });
    expect(JSON.stringify(tenants.body)).not.toContain("\\u0000");
    const keys = await s.call("GET", "/api-keys", { key: admin });
    expect(JSON.stringify(keys.body)).not.toContain("\\u0000");
  });

  it("refuses NUL characters in query parameters", async () => {
    const r = await s.call("GET", "/documents?collection_id=abc%00def", { key: admin });
    statuses.push({ label: "NUL in query", status: r.status });
    expect(issueAt(r, "query", "collection_id").type).toBe("string_nul_character");
  });

  it("handles lone surrogates and unusual Unicode without a 5xx", async () => {
    const r = await s.call("POST", "/tenants", { key: PLATFORM_KEY, body: '{"name":"\\ud800 lone"}', headers: { "content-type": "application/json" } });
    statuses.push({ label: "lone surrogate", status: r.status });
    expect([201, 422]).toContain(r.status);
    const rtl = await s.call("POST", "/tenants", { key: PLATFORM_KEY, json: { name: "\u202e\u200b\ufeffمرحبا 日本 🎉" } });
    expect(rtl.status).toBe(201);
    expect(rtl.body.tenant.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });
});

describe("deep nesting", () => {
  it("answers a 100,000-level array with 422, not a stack overflow", async () => {
    const r = await post("deep array body", "[".repeat(100_000) + "]".repeat(100_000));
    expect(r.status).toBe(422);
    expect422(r);
  });

  it("refuses a deeply nested value inside a field with a 422 at that field", async () => {
    const deepArr = `{"name":${"[".repeat(20_000)}${"]".repeat(20_000)},"scopes":["search"]}`;
    const a = await post("deep array in field", deepArr);
    expect(expect422(a).some((i) => i.loc[1] === "name")).toBe(true);
    const deepObj = `{"name":"x","scopes":["search"],"extra":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`;
    const b = await post("deep object in unknown field", deepObj);
    expect(expect422(b).some((i) => i.loc[1] === "extra")).toBe(true);
    // the answer stays small: the offending value is not echoed back in full
    expect(JSON.stringify(b.body).length).toBeLessThan(10_000);
  });

  it("accepts reasonable nesting in free-form fields", async () => {
    let nested: unknown = "leaf";
    for (let i = 0; i < 20; i++) nested = { level: nested };
    const r = await s.call("POST", "/data-sources", { key: admin, json: { name: "nested", source_type: "upload", configuration: { nested } } });
    statuses.push({ label: "20-level configuration", status: r.status });
    expect(r.status).toBe(201);
    const stored = await s.call("GET", `/data-sources/${r.body.id}`, { key: admin });
    expect(JSON.stringify(stored.body.configuration)).toBe(JSON.stringify({ nested }));
  });
});

describe("headers and URLs", () => {
  it("answers a 20 KB header with 431 and a JSON detail", async () => {
    const r = await rawRequest(s.url, { path: "/health", headers: { "x-padding": "a".repeat(20_000) } });
    expect("status" in r, JSON.stringify(r)).toBe(true);
    if (!("status" in r)) return;
    statuses.push({ label: "20 KB header", status: r.status });
    expect(r.status).toBe(431);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(r.text)).toEqual({ detail: expect.stringMatching(/header/i) });
  });

  it("answers a request that is not HTTP with 400 and a JSON detail", async () => {
    const { port } = new URL(s.url);
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      const sock = net.connect(Number(port), "127.0.0.1", () => sock.write("HELLO THERE\r\n\r\n"));
      sock.setEncoding("utf8");
      sock.on("data", (c: string) => (text += c));
      sock.on("close", () => resolve(text));
      sock.on("error", () => resolve(text));
      sock.setTimeout(5000, () => sock.destroy());
    });
    statuses.push({ label: "not HTTP", status: Number(answer.split(" ")[1]) });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({ detail: expect.any(String) });
  });

  it("survives a 200 KB header and many headers (4xx or a closed connection)", async () => {
    const huge = await rawRequest(s.url, { path: "/me", headers: { authorization: `Bearer ${"k".repeat(200_000)}` } });
    if ("status" in huge) expect(huge.status).toBeGreaterThanOrEqual(400);
    const many: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) many[`x-h-${i}`] = "v".repeat(10);
    const lots = await rawRequest(s.url, { path: "/health", headers: many });
    if ("status" in lots) expect([200, 400, 431, 503]).toContain(lots.status);
  });

  it("answers a long but legal Authorization or X-Tenant-Id header with 401/404, not 500", async () => {
    expectDetail(await s.call("GET", "/me", { headers: { authorization: `Bearer ${"a".repeat(12_000)}` } }), 401);
    const r = await s.call("GET", "/me", { key: PLATFORM_KEY, headers: { "x-tenant-id": "t".repeat(12_000) } });
    expect(r.status).toBe(404);
    expect(r.body.detail.length).toBeLessThan(13_000);
  });

  it("answers very long paths and query strings and bad percent-encoding with a JSON 4xx", async () => {
    for (const p of [
      `/api-keys/${"k".repeat(1000)}`,
      `/${"p".repeat(8000)}`,
      `/me?${"q=1&".repeat(1500)}`,
      "/api-keys/%E0%A4%A",
      "/api-keys/%zz",
      "/me/%00",
    ]) {
      const method = p.startsWith("/api-keys/") ? "DELETE" : "GET";
      const r = await s.call(method, p, { key: admin });
      statuses.push({ label: `path ${p.slice(0, 30)}`, status: r.status });
      if (p.startsWith("/me?")) {
        expect(r.status, p.slice(0, 40)).toBe(200);
        continue;
      }
      expect(r.status, p.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(r.status, p.slice(0, 40)).toBeLessThan(500);
      expect(typeof r.body === "object" && r.body !== null && typeof r.body.detail !== "undefined", p.slice(0, 40)).toBe(true);
    }
  });
});

describe("after the batch", () => {
  it("sent only 4xx answers, and the service still answers", async () => {
    expect(statuses.length).toBeGreaterThan(40);
    expect(statuses.filter((x) => x.status >= 500)).toEqual([]);
    const health = await s.call("GET", "/health");
    expect([200, 503]).toContain(health.status);
    expect(health.body.checks.database.status).toBe("up");
    const me = await s.call("GET", "/me", { key: admin });
    expect(me.status).toBe(200);
    const k = await s.call("POST", "/api-keys", { key: admin, json: { name: "still works", scopes: ["search"] } });
    expect(k.status).toBe(201);
    expect((await s.call("GET", "/me", { key: k.body.key })).status).toBe(200);
  });
});
