// Clean edges: oversized bodies answer 413 whatever the client's write pattern, and text that is
// not Unicode (lone surrogates) or not UTF-8 is refused with a 4xx that says what to send.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noModelEnv, startServer, type TestServer } from "../kit/index.js";

let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startServer(noModelEnv());
  key = (await s.tenant()).adminKey;
});
afterAll(async () => s?.close());

/**
 * Node's own client writes the whole body before it reads the answer. A server that answers and
 * closes mid-body makes the write fail (EPIPE/ECONNRESET): that counts as a failure here, even
 * when the 413 happened to be read first.
 */
function writeThenRead(path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(s.url + path);
    let answer: { status: number; text: string } | null = null;
    let written = false;
    const settle = () => {
      if (answer && written) resolve(answer);
    };
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { ...headers, authorization: `Bearer ${key}`, "content-length": String(body.length) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => {
          answer = { status: res.statusCode ?? 0, text };
          settle();
        });
      },
    );
    req.on("error", reject);
    // paced writes, as a client streaming from disk does; each waits until the socket took the last
    void (async () => {
      for (let at = 0; at < body.length; at += 256 * 1024) {
        if (req.destroyed) return;
        if (!req.write(body.subarray(at, at + 256 * 1024))) await new Promise((r) => req.once("drain", r));
      }
      req.end(() => {
        written = true;
        settle();
      });
    })();
  });
}

describe("oversized bodies", () => {
  const big = Buffer.from(JSON.stringify({ name: "x".repeat(6 * 1024 * 1024) }));

  it.each(["/collections", "/data-sources", "/search", "/retrieve", "/api-keys", "/crawl", "/benchmarks"])(
    "a 6 MB JSON body to %s gets 413 with the JSON detail, not a reset",
    async (path) => {
      const r = await writeThenRead(path, big, { "content-type": "application/json" });
      expect(r.status).toBe(413);
      expect(JSON.parse(r.text).detail).toMatch(/at most 4 MB/);
    },
  );

  it("a 60 MB file in a multipart upload gets 413 with the file named", async () => {
    const src = await s.call("POST", "/data-sources", { key, json: { name: "Files", source_type: "upload" } });
    const boundary = "----quarry-test-boundary";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="data_source_id"\r\n\r\n${src.body.id}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="huge.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, Buffer.alloc(60 * 1024 * 1024, 0x61), tail]);
    const r = await writeThenRead("/documents/upload", body, { "content-type": `multipart/form-data; boundary=${boundary}` });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).detail).toContain("huge.txt");
    const docs = await s.call("GET", `/documents?data_source_id=${src.body.id}`, { key });
    expect(docs.body).toEqual([]);
  });
});

describe("text that is not Unicode or not UTF-8", () => {
  it("refuses a lone surrogate in a collection name with 422 string_unicode", async () => {
    const r = await s.call("POST", "/collections", { key, body: '{"name":"bad \\ud800 name"}', headers: { "content-type": "application/json" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ type: "string_unicode", loc: ["body", "name"] });
    expect(r.body.detail[0].msg).toMatch(/lone UTF-16 surrogate/);
    const list = await s.call("GET", "/collections", { key });
    expect(list.body).toEqual([]);
  });

  it("refuses a lone low surrogate in a description and in an object key", async () => {
    const d = await s.call("POST", "/collections", { key, body: '{"name":"ok","description":"x\\udc00"}', headers: { "content-type": "application/json" } });
    expect(d.status).toBe(422);
    expect(d.body.detail[0].loc).toEqual(["body", "description"]);
    const k = await s.call("POST", "/search", { key, body: '{"query":"a","collection_id":"col_x","\\ud83d":1}', headers: { "content-type": "application/json" } });
    expect(k.status).toBe(422);
    expect(k.body.detail.some((i: { type: string }) => i.type === "string_unicode")).toBe(true);
  });

  it("keeps whole astral characters (a real emoji pair is fine)", async () => {
    const r = await s.call("POST", "/collections", { key, json: { name: "Docs 🔥" } });
    expect(r.status).toBe(201);
    expect(r.body.name).toBe("Docs 🔥");
  });

  it("refuses a body labelled charset=utf-16 with 415 that says to send UTF-8", async () => {
    const body = Buffer.from(JSON.stringify({ name: "Wide" }), "utf16le");
    const r = await s.call("POST", "/collections", { key, body, headers: { "content-type": "application/json; charset=utf-16" } });
    expect(r.status).toBe(415);
    expect(r.body.detail).toMatch(/UTF-8/);
  });

  it("accepts an explicit charset=utf-8 label", async () => {
    const r = await s.call("POST", "/collections", { key, body: JSON.stringify({ name: "Labelled" }), headers: { "content-type": "application/json; charset=UTF-8" } });
    expect(r.status).toBe(201);
  });
});
