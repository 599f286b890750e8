// A JSON `null` body over a real keep-alive socket, as clients send it. DELETE /auth/workspace with
// `null` used to reset the connection: Node's http client sends a DELETE body with neither
// Content-Length nor Transfer-Encoding, so the server reads a bodiless request followed by bytes
// that do not start a request, and the parse error tore the socket down under the reply.
// Every such request must get a 4xx with a detail or a 2xx, and the client keep working.
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noModelEnv, startServer, PLATFORM_KEY, type TestServer } from "../kit/index.js";
import { operations } from "../soak/corpus.js";
import { signup } from "./helpers/accounts.js";

let s: TestServer;
let agent: http.Agent;
const credentials: Record<string, Record<string, string>> = {};

beforeAll(async () => {
  s = await startServer(noModelEnv());
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const owner = await signup(s);
  const t = await s.tenant("Null body");
  credentials.session = { cookie: owner.cookie };
  credentials["admin key"] = { authorization: `Bearer ${t.adminKey}` };
  credentials["platform key"] = { authorization: `Bearer ${PLATFORM_KEY}` };
  credentials.none = {};
});
afterAll(async () => {
  agent?.destroy();
  await s?.close();
});

type Outcome = { status: number; text: string } | { error: string };

type Framing = "length" | "unframed" | "unframed, late body";

/** "length": with Content-Length, as fetch sends it; otherwise as Node's http client writes a
 * DELETE body (no length, no chunks), in one segment with the headers or after them. */
function send(method: string, path: string, headers: Record<string, string>, body: string, framing: Framing): Promise<Outcome> {
  const framed = framing === "length";
  return new Promise((resolve) => {
    const all = { "content-type": "application/json", ...headers, ...(framed ? { "content-length": String(Buffer.byteLength(body)) } : {}) };
    const req = http.request(s.url + path, { method, headers: all, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", (e) => resolve({ error: e.message }));
    });
    req.on("error", (e) => resolve({ error: `${(e as NodeJS.ErrnoException).code ?? ""} ${e.message}` }));
    if (framing !== "unframed, late body") return req.end(body);
    req.flushHeaders();
    setTimeout(() => req.end(body), 100);
  });
}

function problem(label: string, r: Outcome): string | null {
  if ("error" in r) return `${label}: ${r.error}`;
  if (r.status >= 500 || r.status < 200 || (r.status >= 300 && r.status < 400)) return `${label}: ${r.status} ${r.text.slice(0, 200)}`;
  if (r.status >= 400 && !/^\{"detail":/.test(r.text)) return `${label}: ${r.status} without a JSON detail`;
  return null;
}

describe("a JSON null body", () => {
  it("on DELETE /auth/workspace answers with a detail, framed or not, and the session keeps working", async () => {
    const problems: string[] = [];
    for (const [who, headers] of Object.entries(credentials)) {
      for (const framing of ["length", "unframed", "unframed, late body"] as const) {
        const r = await send("DELETE", "/auth/workspace", headers, "null", framing);
        problems.push(problem(`${who}, ${framing}`, r) ?? "");
        // the route's own answer (no credentials, or no body), not the parser's
        if (!("error" in r)) expect(r.text, `${who}, ${framing}`).toMatch(who === "none" ? /Credentials are missing/ : /"loc":\["body"\]/);
        // the next request on the same agent is answered. Where the route answered before the late
        // body came, those bytes reach the server as the start of the next request: a 400 then.
        const me = await send("GET", "/me", credentials.session!, "", "length");
        problems.push(problem(`GET /me after ${who}, ${framing}`, me) ?? "");
        if (framing !== "unframed, late body") expect("status" in me && me.status, `after ${who}, ${framing}`).toBe(200);
      }
    }
    expect(problems.filter(Boolean)).toEqual([]);
  });

  it("on every operation that takes a JSON body answers a 4xx with a detail or a 2xx", async () => {
    const doc = (await s.call("GET", "/openapi.json")).body;
    const ops = operations(doc).filter((op) => op.method !== "GET" && op.contentType === "application/json");
    expect(ops.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const op of ops) {
      const path = op.path.replace(/\{[^}]+\}/g, "zz_missing");
      const headers = op.scope === "platform" ? credentials["platform key"]! : credentials["admin key"]!;
      for (const framing of op.method === "DELETE" ? (["length", "unframed"] as const) : (["length"] as const)) {
        problems.push(problem(`${op.method} ${op.path} (${framing})`, await send(op.method, path, headers, "null", framing)) ?? "");
      }
    }
    expect(problems.filter(Boolean)).toEqual([]);
  });

  it("leaves a request whose own chunked body is broken to the parser's 400, at once", async () => {
    const { port } = new URL(s.url);
    const text = await new Promise<string>((resolve) => {
      const sock = net.connect(Number(port), "127.0.0.1", () =>
        sock.write("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nnull\r\n0\r\n\r\n"),
      );
      let got = "";
      sock.setEncoding("utf8");
      sock.on("data", (c: string) => (got += c));
      sock.on("close", () => resolve(got));
      sock.on("error", (e) => resolve(`error ${e.message}`));
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('{"detail":"The HTTP request is malformed.');
  });
});
