// Bad uploads over real HTTP: each gets a clear answer, and nothing is left half-stored (no
// document rows, no stored files, no temp files under DATA_DIR/files/tmp).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
  chunksOf,
  createSource,
  expect422,
  expectDetail,
  multipart,
  settle,
  startWithTenant,
  tmpFiles,
  upload,
  uploadAndSettle,
  waitFor,
  type Ctx,
} from "./helpers.js";
import { makeDocx, makeZip } from "./fixtures.js";
import { DRAIN_MAX_MS } from "../../src/http/drain.js";

let c: Ctx;
let source: any;
beforeAll(async () => {
  c = await startWithTenant({}, { listen: true }); // a raw request cuts an upload short
  source = await createSource(c, "bad-input");
});
afterAll(async () => {
  await c?.s.close();
});

const docCount = async () => (await c.call("GET", `/data-sources/${source.id}`)).body.document_count as number;
/** the tenant's stored originals, through the server's file store */
const storedFiles = async () => {
  const out: string[] = [];
  for await (const f of c.s.rt.files.list()) if (f.tenantId === c.tenantId) out.push(f.documentId);
  return out;
};

/** a refused request stores nothing: same documents, same stored files, no temp files */
async function expectNothingStored(before: { docs: number; files: string[] }) {
  expect(await docCount()).toBe(before.docs);
  expect((await storedFiles()).sort()).toEqual(before.files.sort());
  await waitFor(async () => tmpFiles(c.s.dataDir).length === 0, "temp files to be removed", 5000);
}

let before: { docs: number; files: string[] };
beforeEach(async () => {
  before = { docs: await docCount(), files: await storedFiles() };
});

describe("refused uploads", () => {
  test("zero files -> 422 on body.files", async () => {
    const r = await upload(c, source.id, []);
    expect422(r, "body", "files");
    await expectNothingStored(before);
  });

  test("missing data_source_id -> 422 on body.data_source_id, temp files removed", async () => {
    const r = await upload(c, null, [{ name: "a.txt", data: "hello there" }]);
    expect422(r, "body", "data_source_id");
    await expectNothingStored(before);
  });

  test("an empty file alone -> 422 naming the file; beside a good file it becomes a failed document", async () => {
    const r = await upload(c, source.id, [{ name: "empty.txt", data: "" }]);
    const issues = expect422(r, "body", "files", 0);
    expect(issues[0].msg).toMatch(/empty/);
    await expectNothingStored(before);
    const docs = await uploadAndSettle(c, source.id, [
      { name: "empty2.txt", data: "" },
      { name: "full.txt", data: "there is something here" },
    ]);
    expect(docs[0]).toMatchObject({ status: "failed" });
    expect(docs[0].error).toMatch(/empty/);
    expect(docs[1].status).toBe("indexed");
  });

  test("a source of another tenant -> 404 exactly like a missing source", async () => {
    const t = await c.s.tenant();
    const theirs = (await c.s.call("POST", "/data-sources", { key: t.adminKey, json: { name: "theirs", source_type: "upload" } })).body;
    const a = await upload(c, theirs.id, [{ name: "a.txt", data: "hello" }]);
    const b = await upload(c, "src_doesnotexist0000", [{ name: "a.txt", data: "hello" }]);
    expectDetail(a, 404, theirs.id);
    expectDetail(b, 404);
    expect(a.body.detail.replace(theirs.id, "ID")).toBe(b.body.detail.replace("src_doesnotexist0000", "ID"));
    await expectNothingStored(before);
    expect((await c.s.call("GET", `/data-sources/${theirs.id}`, { key: t.adminKey })).body.document_count).toBe(0);
  });

  test("a website source -> 400 saying to use an upload source", async () => {
    const w = (await c.call("POST", "/data-sources", { name: "site", source_type: "website", configuration: { url: "https://example.com" } })).body;
    expectDetail(await upload(c, w.id, [{ name: "a.txt", data: "hello" }]), 400, /upload/);
    expect((await c.call("GET", `/data-sources/${w.id}`)).body.document_count).toBe(0);
    await expectNothingStored(before);
  });

  test("only unsupported files -> 415 naming the file and the supported types", async () => {
    const r = await upload(c, source.id, [{ name: "song.mp3", data: Buffer.concat([Buffer.from("ID3\x03\x00\x00\x00\x00\x00\x00"), Buffer.alloc(256, 1)]) }]);
    expectDetail(r, 415, "song.mp3", /Supported: .*PDF.*Word.*Markdown.*CSV.*JSON/);
    await expectNothingStored(before);
  });

  test("a PDF that is really a ZIP -> 415 saying so; beside a good file it is a failed document", async () => {
    const zip = makeZip({ "a.txt": "inside a zip" });
    const r = await upload(c, source.id, [{ name: "report.pdf", data: zip, type: "application/pdf" }]);
    expectDetail(r, 415, "report.pdf", /ZIP/);
    await expectNothingStored(before);
    const docs = await uploadAndSettle(c, source.id, [
      { name: "report.pdf", data: zip, type: "application/pdf" },
      { name: "ok.txt", data: "fine" },
    ]);
    expect(docs[0].status).toBe("failed");
    expect(docs[0].error).toMatch(/ZIP/);
  });

  test("a corrupt DOCX is accepted, then fails with an error a user can act on; the worker keeps going", async () => {
    const good = await makeDocx();
    const docs = await uploadAndSettle(c, source.id, [
      { name: "cut.docx", data: good.subarray(0, 300) },
      { name: "garbled.docx", data: Buffer.concat([good.subarray(0, 2000), Buffer.alloc(2000, 0x41), good.subarray(4000)]) },
      { name: "after.txt", data: "the queue keeps working after bad files" },
    ]);
    for (const d of docs.slice(0, 2)) {
      expect(d.status, d.source).toBe("failed");
      expect(d.error, d.source).toMatch(/DOCX|Word/i);
      expect(d.error, d.source).toMatch(/upload|save/i);
    }
    expect(docs[2].status).toBe("indexed");
  });

  test("JSON (or text) body instead of multipart -> 415", async () => {
    expectDetail(await c.call("POST", "/documents/upload", { data_source_id: source.id, files: ["a.txt"] }), 415, /multipart/);
    const t = await c.s.call("POST", "/documents/upload", { key: c.key, body: "hello", headers: { "content-type": "text/plain" } });
    expect(t.status).toBe(415);
    await expectNothingStored(before);
  });

  test("files under another field name -> 422; a malformed multipart body -> 400", async () => {
    const mp = multipart({ data_source_id: source.id }, [{ name: "a.txt", data: "hello" }], "attachment");
    const r = await c.s.call("POST", "/documents/upload", { key: c.key, body: new Uint8Array(mp.body), headers: { "content-type": mp.contentType } });
    expect422(r, "body", "attachment");
    const bad = await c.s.call("POST", "/documents/upload", {
      key: c.key,
      body: "--xyz\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nunterminated",
      headers: { "content-type": "multipart/form-data; boundary=xyz" },
    });
    expect([400, 422]).toContain(bad.status);
    expect(typeof bad.body.detail === "string" || Array.isArray(bad.body.detail)).toBe(true);
    await expectNothingStored(before);
  });

  test("more than 100 files in one request -> refused naming the limit; nothing stored", async () => {
    const files = Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.txt`, data: `file ${i}` }));
    const r = await upload(c, source.id, files);
    expect([413, 422]).toContain(r.status);
    expect(JSON.stringify(r.body.detail)).toMatch(/100/);
    await expectNothingStored(before);
  });

  test("a search-scope key cannot upload (403)", async () => {
    const k = await c.call("POST", "/api-keys", { name: "reader", scopes: ["search"] });
    expectDetail(await upload(c, source.id, [{ name: "a.txt", data: "hello" }], k.body.key), 403, "ingest");
    await expectNothingStored(before);
  });
});

describe("size limit", () => {
  const limit = 50 * 1024 * 1024;

  /** Streams one file of `size` bytes and, when `hold`, keeps the request open after the file. */
  function streamUpload(size: number, hold: boolean, fill = 0x61): Promise<{ status: number; body: any; answeredWhileSending: boolean }> {
    const boundary = "----quarrybig";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="data_source_id"\r\n\r\n${source.id}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    return new Promise((resolve, reject) => {
      let ended = false;
      const req = http.request(c.s.url + "/documents/upload", {
        method: "POST",
        headers: { authorization: `Bearer ${c.key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      req.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), answeredWhileSending: !ended });
          req.destroy();
        });
      });
      req.on("error", (e) => {
        if (!ended && (e as NodeJS.ErrnoException).code === "EPIPE") return; // server closed after answering
        reject(e);
      });
      const chunk = Buffer.alloc(1024 * 1024, fill); // "aaaa…" by default (text, so only the size is wrong)
      let sent = 0;
      const pump = () => {
        req.write(head);
        const next = () => {
          while (sent < size) {
            const n = Math.min(chunk.length, size - sent);
            sent += n;
            if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once("drain", next);
          }
          if (!hold) {
            req.end(tail);
            ended = true;
          }
          // hold: the closing boundary is never sent, so only a streaming check can answer
        };
        next();
      };
      pump();
    });
  }

  // the size limit is the HTTP layer's, enforced before any store is involved: once, on SQLite
  const bigBodies = test.skipIf(process.env.TEST_STORE === "postgres");

  bigBodies("50 MB + 1 byte -> 413 while the body is still arriving; nothing stored, no temp file left", async () => {
    const started = Date.now();
    const r = await streamUpload(limit + 1, true);
    expect(r.status).toBe(413);
    // the client paused: answered then, not at the drain's deadline
    expect(Date.now() - started).toBeLessThan(DRAIN_MAX_MS);
    expect(r.body.detail).toMatch(/50 MB/);
    expect(r.answeredWhileSending).toBe(true);
    await expectNothingStored(before);
  }, 60_000);

  bigBodies("exactly 50 MB is within the limit: judged on its content (binary zeros -> 415), not refused as too large", async () => {
    // zeros, so the file is refused for its type without starting any ingest work
    const r = await streamUpload(limit, false, 0);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(415);
    expect(r.body.detail).toMatch(/big\.txt.*binary/);
    await expectNothingStored(before);
  }, 60_000);
});

describe("file names", () => {
  test("path separators are stripped: the document gets the last segment, the file stays under DATA_DIR/files/<tenant>", async () => {
    const docs = await uploadAndSettle(c, source.id, [
      { name: "../../etc/passwd.txt", data: "not the real passwd" },
      { name: "..\\..\\windows\\win.ini.txt", data: "not the real win.ini" },
      { name: "/abs/path/notes.md", data: "# Notes\n\ntext" },
    ]);
    expect(docs.map((d) => d.source)).toEqual(["passwd.txt", "win.ini.txt", "notes.md"]);
    for (const d of docs) {
      expect(d.status).toBe("indexed");
      expect(await c.s.rt.files.read(c.tenantId, d.id)).not.toBeNull();
      expect(d.source).not.toMatch(/[\\/]/);
    }
    // nothing was written next to DATA_DIR/files or above it
    expect(fs.readdirSync(path.join(c.s.dataDir, "files")).filter((e) => e !== c.tenantId && e !== "tmp")).toEqual([]);
    expect(fs.existsSync(path.join(c.s.dataDir, "etc"))).toBe(false);
  });

  test("odd Unicode: bidi overrides and control characters are removed, names are NFC, reserved names are defused", async () => {
    const docs = await uploadAndSettle(c, source.id, [
      { name: "invoice\u202Efdp.txt", data: "bidi override" },
      { name: "e\u0301cole.md", data: "# École\n\ntext" },
      { name: "日本語のメモ.txt", data: "日本語のテキストです。" },
      { name: "con.txt", data: "reserved on windows" },
      { name: "tab\tand\u0007bell.txt", data: "control chars" },
    ]);
    const names = docs.map((d) => d.source);
    expect(names[0]).toBe("invoicefdp.txt");
    expect(names[1]).toBe("\u00e9cole.md");
    expect(names[2]).toBe("日本語のメモ.txt");
    expect(names[3]).not.toBe("con.txt");
    expect(names[3]).toMatch(/con\.txt$/);
    expect(names[4]).not.toMatch(/[\u0000-\u001f]/);
    for (const d of docs) expect(d.status, `${d.source}: ${d.error}`).toBe("indexed");
    expect((await chunksOf(c, docs[2].id)).chunks[0].text).toContain("日本語");
  });

  test("an overlong name is shortened with its extension kept", async () => {
    const [d] = await uploadAndSettle(c, source.id, [{ name: `${"long".repeat(100)}.md`, data: "# Long\n\nname" }]);
    expect(Array.from(d.source).length).toBeLessThanOrEqual(180);
    expect(d.source.endsWith(".md")).toBe(true);
    expect(d.status).toBe("indexed");
  });
});

describe("bad files do not stall the queue", () => {
  test("after the refusals the source is ready and every accepted document is settled", async () => {
    const docs = (await c.call("GET", `/documents?data_source_id=${source.id}`)).body;
    await settle(
      c,
      docs.map((d: any) => d.id),
    );
    const s = (await c.call("GET", `/data-sources/${source.id}`)).body;
    expect(s.status).toBe("ready");
    expect(s.document_count).toBe(s.indexed_count + s.failed_count);
  });
});
