// Atomic acceptance: bytes are stored before rows are committed; after a crash, start-up places
// the files of committed rows and discards the rest, so no document exists that the client never
// heard of, and none exists without its bytes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { localFileStore } from "../../src/store/files.js";
import { acceptDocuments, recoverStagedFiles } from "../../src/services/documents/acceptance.js";
import { LimitReached, type IncomingDocument } from "../../src/store/content-types.js";
import { noModelEnv, startServer, PLATFORM_KEY } from "../kit/index.js";

const log = pino({ level: "silent" });
const open: SqliteStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

function setup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-accept-"));
  const store = openSqliteStore(dataDir);
  open.push(store);
  const files = localFileStore(path.join(dataDir, "files"));
  return { dataDir, store, files, content: store.content };
}

async function tenantWithSource(store: SqliteStore) {
  const now = new Date().toISOString();
  const tenant = { id: `ten_${Math.random().toString(16).slice(2)}`, name: "T", slug: `t-${Math.random().toString(16).slice(2)}`, plan: "free", verified: true, created_at: now };
  const key = { id: `key_${Math.random().toString(16).slice(2)}`, tenant_id: tenant.id, name: "k", prefix: "qk_x", hash: Math.random().toString(16), scopes: ["admin" as const], created_at: now, expires_at: null, revoked_at: null, last_used_at: null };
  await store.tenants.createWithKey(tenant, key);
  const sourceId = `src_${Math.random().toString(16).slice(2)}`;
  await store.content.createSource(
    { id: sourceId, tenant_id: tenant.id, name: "S", source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: now },
    [],
    null,
  );
  return { tenantId: tenant.id, sourceId };
}

function incoming(name: string, hash: string): IncomingDocument {
  return { id: `doc_${Math.random().toString(16).slice(2)}`, source: name, title: name, source_type: "upload", kind: "text", content_type: "text/plain", size_bytes: 5, content_hash: hash, metadata: {} };
}

function temp(files: ReturnType<typeof localFileStore>, text: string): string {
  const p = files.tempPath();
  fs.writeFileSync(p, text);
  return p;
}

describe("acceptDocuments", () => {
  it("commits rows with their bytes in place and no staged files left", async () => {
    const { store, files, content } = setup();
    const { tenantId, sourceId } = await tenantWithSource(store);
    const rows = await acceptDocuments({ content, files }, tenantId, sourceId, [{ doc: incoming("a.txt", "aaaa"), tempPath: temp(files, "alpha") }], null);
    expect((await files.read(tenantId, rows[0].id))?.toString()).toBe("alpha");
    expect(await files.staged()).toEqual([]);
  });

  it("keeps nothing, rows or bytes, when the batch passes the plan limit", async () => {
    const { store, files, content } = setup();
    const { tenantId, sourceId } = await tenantWithSource(store);
    const items = [1, 2, 3].map((i) => ({ doc: incoming(`${i}.txt`, `h${i}`), tempPath: temp(files, `body ${i}`) }));
    await expect(acceptDocuments({ content, files }, tenantId, sourceId, items, 2)).rejects.toBeInstanceOf(LimitReached);
    expect(await content.listDocuments(tenantId, { limit: 10 })).toEqual([]);
    expect(await files.staged()).toEqual([]);
  });

  it("does not touch the acknowledged version's bytes until the re-upload is committed", async () => {
    const { store, files, content } = setup();
    const { tenantId, sourceId } = await tenantWithSource(store);
    const [first] = await acceptDocuments({ content, files }, tenantId, sourceId, [{ doc: incoming("a.txt", "v1"), tempPath: temp(files, "one") }], null);
    // a re-upload cut off after staging (before its commit)
    await files.stage(tenantId, first.id, "v2", temp(files, "two"));
    expect((await files.read(tenantId, first.id))?.toString()).toBe("one");
    const again = await acceptDocuments({ content, files }, tenantId, sourceId, [{ doc: incoming("a.txt", "v3"), tempPath: temp(files, "three") }], null);
    expect(again[0].id).toBe(first.id);
    expect((await files.read(tenantId, first.id))?.toString()).toBe("three");
  });
});

describe("recoverStagedFiles", () => {
  it("places the file of a row committed before the crash and discards a stale uncommitted one", async () => {
    const { store, files, content } = setup();
    const { tenantId, sourceId } = await tenantWithSource(store);
    // crash after the commit, before the rename
    const committed = incoming("committed.txt", "c0ffee");
    await files.stage(tenantId, committed.id, "c0ffee", temp(files, "kept"));
    await content.upsertDocuments(tenantId, sourceId, [committed], null);
    // crash before the commit: staged bytes, no row; aged past the grace period
    const orphan = incoming("orphan.txt", "0dd");
    await files.stage(tenantId, orphan.id, "0dd", temp(files, "lost"));
    const stagedPath = path.join(path.dirname(files.tempPath()), "..", tenantId, `${orphan.id}.0dd.incoming`);
    const old = new Date(Date.now() - 60 * 60 * 1000);
    fs.utimesSync(stagedPath, old, old);

    expect(await recoverStagedFiles({ content, files, log })).toEqual({ placed: 1, discarded: 1 });
    expect((await files.read(tenantId, committed.id))?.toString()).toBe("kept");
    expect(await files.read(tenantId, orphan.id)).toBeNull();
    expect(await content.getDocument(tenantId, orphan.id)).toBeNull();
    expect(await files.staged()).toEqual([]);
  });

  it("finishes an interrupted upload at server start: the committed document gets indexed", async () => {
    const env = noModelEnv();
    const { dataDir, store, files, content } = setup();
    const { tenantId, sourceId } = await tenantWithSource(store);
    const doc = incoming("notes.txt", "beef");
    await files.stage(tenantId, doc.id, "beef", temp(files, "Notes about interrupted uploads and recovery."));
    await content.upsertDocuments(tenantId, sourceId, [doc], null);
    await store.close();

    const s = await startServer(env, { dataDir, listen: false });
    try {
      const deadline = Date.now() + 30_000;
      let status = "";
      while (Date.now() < deadline) {
        const r = await s.call("GET", `/documents/${doc.id}`, { key: PLATFORM_KEY, headers: { "x-tenant-id": tenantId } });
        status = r.body.status;
        if (status === "indexed" || status === "failed") break;
        await new Promise((res) => setTimeout(res, 100));
      }
      expect(status).toBe("indexed");
    } finally {
      await s.close();
    }
  });
});
