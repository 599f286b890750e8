// The SQLite store's lexical index against its database: a second process on the same file sees
// writes and deletes through the change log, a database from before migration 006 (no
// chunk_terms) is backfilled at open, and a failed transaction leaves no trace in the index.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { analyzeQuery } from "../../src/search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../src/search/lexical/analyze.js";
import { parseQuery } from "../../src/search/lexical/parse-query.js";
import { LexicalIndexes } from "../../src/store/sqlite/content/lexical-index.js";

const W = { title: 2, headings: 1.5, body: 1 };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-lexstore-"));
const opened: SqliteStore[] = [];
afterAll(() => {
  for (const s of opened) s.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function open(): SqliteStore {
  const s = openSqliteStore(dir);
  opened.push(s);
  return s;
}

async function addDoc(s: SqliteStore, id: string, title: string, texts: string[]): Promise<void> {
  const at = new Date().toISOString();
  s.db
    .prepare(
      `INSERT INTO documents (id, tenant_id, data_source_id, title, source_type, source, status, created_at, updated_at)
       VALUES (?, 't1', 's1', ?, 'upload', ?, 'queued', ?, ?)`,
    )
    .run(id, title, id, at, at);
  const chunks = texts.map((text, position) => ({ position, text, heading_path: ["Intro"], token_count: 10, metadata: {} }));
  await s.content.replaceDocumentIndex("t1", id, { title, metadata: {} }, chunks, null);
}

const lexicalQuery = (text: string) => analyzeQuery(parseQuery(text), DEFAULT_ANALYZER);
const search = (s: SqliteStore, q: string) => s.content.lexicalSearch("t1", ["s1"], lexicalQuery(q), 10, W);

describe("SQLite lexical index and its database", () => {
  it("a second store on the same file sees adds and deletes; a pre-006 database is backfilled", async () => {
    const a = open();
    const at = new Date().toISOString();
    a.db.prepare("INSERT INTO tenants (id, name, slug, created_at) VALUES ('t1', 'T', 't', ?)").run(at);
    a.db.prepare("INSERT INTO data_sources (id, tenant_id, name, source_type, created_at) VALUES ('s1', 't1', 'S', 'upload', ?)").run(at);
    await addDoc(a, "d1", "Glaciers", ["A glacier carves a valley.", "Moraines mark where the ice stopped."]);
    const b = open();
    const first = await search(b, "glacier moraine");
    expect(first).toHaveLength(2);
    await addDoc(a, "d2", "Rivers", ["A river meets the glacier at its snout."]);
    expect(await search(b, "glacier moraine")).toHaveLength(3);
    expect(await a.content.deleteDocument("t1", "d2")).toBe(true);
    expect(await search(b, "glacier moraine")).toEqual(first);
    expect(await search(a, "glacier moraine")).toEqual(first);

    // as if written before migration 006: no terms rows, not marked backfilled
    a.db.exec("DELETE FROM chunk_terms; DELETE FROM lexical_meta WHERE key = 'backfilled'");
    expect(await search(open(), "glacier moraine")).toEqual(first);
  });

  it("a rolled-back write leaves the index as it was", async () => {
    const s = open();
    const before = await search(s, "glacier");
    expect(() =>
      s.db.transaction(() => {
        s.db.prepare("DELETE FROM chunks WHERE document_id = 'd1'").run();
        throw new Error("abort");
      })(),
    ).toThrow("abort");
    expect(await search(s, "glacier")).toEqual(before);
  });
});

describe("background warm-up of the lexical indexes", () => {
  it("loads a tenant in pages while it is written to and scores exactly like a load from scratch", async () => {
    const s = open();
    const at = new Date().toISOString();
    s.db.prepare("INSERT OR IGNORE INTO tenants (id, name, slug, created_at) VALUES ('t1', 'T', 't', ?)").run(at);
    s.db.prepare("INSERT OR IGNORE INTO data_sources (id, tenant_id, name, source_type, created_at) VALUES ('s1', 't1', 'S', 'upload', ?)").run(at);
    for (let i = 0; i < 6; i++) await addDoc(s, `w${i}`, `Glacier ${i}`, [`The glacier ${i} carves a valley.`, `Moraine ${i} marks the ice.`]);
    // writes between pages: a new chunk past the pages read so far, and removal of ones already read
    const writes = [() => addDoc(s, "w-late", "Late glacier", ["A late glacier and its moraine."]), () => s.content.deleteDocument("t1", "w0")];
    let pages = 0;
    const lex = new LexicalIndexes(s.db, {
      page: 3,
      pause: async () => {
        pages++;
        await writes.shift()?.();
      },
    });
    expect(await lex.warm()).toBeGreaterThanOrEqual(1);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(lex.loaded).toBeGreaterThanOrEqual(1);
    const q = lexicalQuery("glacier moraine");
    const warmed = lex.search("t1", ["s1"], q, 50, W);
    const fresh = new LexicalIndexes(s.db).search("t1", ["s1"], q, 50, W); // loaded whole at this query
    expect(warmed).toEqual(fresh);
    expect(warmed.length).toBeGreaterThan(10);
  });
});
