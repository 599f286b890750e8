// The content store on both backends for conformance tests: SQLite files, and PostgreSQL (a fresh
// database per test file, emptied between tests). Without a PostgreSQL with pgvector the
// PostgreSQL half is skipped with the reason printed.
import fs from "node:fs";
import type { IncomingDocument } from "../../src/store/content-types.js";
import os from "node:os";
import path from "node:path";
import { afterAll, describe } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { createPool, migrate, type Pool } from "../../src/store/postgres/db.js";
import { postgresContent, type PostgresContentOptions } from "../../src/store/postgres/content/index.js";
import type { ContentStore } from "../../src/store/content-store.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";

export type BackendKind = "sqlite" | "postgres";

export interface ContentBackend {
  kind: BackendKind;
  content: ContentStore;
  /** raw SQL for test setup; `?` placeholders (rewritten to $n on PostgreSQL) */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  addTenants(...ids: string[]): Promise<void>;
  deleteTenant(id: string): Promise<void>;
  /** another connection to the same database, as a second process would hold */
  reopen(): Promise<ContentBackend>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL content options (vector search thresholds) */
  pg?: PostgresContentOptions;
  /** SQLite vector index mode (default "exact": no graph files) */
  sqliteVectors?: "hnsw" | "exact";
  /** SQLite: filtered vector searches over fewer chunks scan them exactly (the store's default otherwise) */
  sqliteFilterExactBelow?: number;
}

const pgReason = await pgUnavailableReason();

function sqliteBackend(dir: string, own: boolean, opts: OpenOptions): ContentBackend {
  const store: SqliteStore = openSqliteStore(dir, {
    vectorIndex: opts.sqliteVectors ?? "exact",
    ...(opts.sqliteFilterExactBelow !== undefined ? { filterExactBelow: opts.sqliteFilterExactBelow } : {}),
  });
  return {
    kind: "sqlite",
    content: store.content,
    async sql<T>(text: string, params: unknown[] = []) {
      const st = store.db.prepare(text);
      return (st.reader ? st.all(...params) : (st.run(...params), [])) as T[];
    },
    async addTenants(...ids) {
      for (const id of ids) {
        store.db.prepare("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES (?, ?, ?, 'free', 1, ?)").run(id, id, id, new Date().toISOString());
      }
    },
    async deleteTenant(id) {
      store.db.prepare("DELETE FROM tenants WHERE id = ?").run(id);
    },
    async reopen() {
      return sqliteBackend(dir, false, opts);
    },
    async close() {
      await store.close();
      if (own) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const toDollar = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

function pgBackend(pool: Pool, url: string, own: boolean, opts: OpenOptions): ContentBackend {
  return {
    kind: "postgres",
    content: postgresContent(pool, opts.pg),
    async sql<T>(text: string, params: unknown[] = []) {
      return (await pool.query(toDollar(text), params)).rows as T[];
    },
    async addTenants(...ids) {
      for (const id of ids) {
        await pool.query("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES ($1, $1, $1, 'free', TRUE, $2)", [id, new Date().toISOString()]);
      }
    },
    async deleteTenant(id) {
      await pool.query("DELETE FROM tenants WHERE id = $1", [id]);
    },
    async reopen() {
      return pgBackend(createPool(url, { max: 4 }), url, true, opts);
    },
    async close() {
      if (own) await pool.end();
    },
  };
}

/**
 * Runs `body` once per backend. `open()` gives an empty content store (tenants to be added);
 * stores opened in a test are closed by the test's cleanup.
 */
export function describeEachContentStore(title: string, body: (open: (opts?: OpenOptions) => Promise<ContentBackend>, kind: BackendKind) => void): void {
  describe(`${title} (sqlite)`, () => {
    body(async (opts = {}) => sqliteBackend(fs.mkdtempSync(path.join(os.tmpdir(), "quarry-content-")), true, opts), "sqlite");
  });
  if (pgReason) {
    console.warn(`skipping the PostgreSQL half of "${title}": ${pgReason}`);
    describe.skip(`${title} (postgres)`, () => body(async () => Promise.reject(new Error(pgReason)), "postgres"));
    return;
  }
  describe(`${title} (postgres)`, () => {
    let db: TestDatabase | null = null;
    let pool: Pool | null = null;
    afterAll(async () => {
      await pool?.end();
      await db?.drop();
    });
    body(async (opts = {}) => {
      if (!db) {
        db = await createTestDatabase("quarry_content", { migrated: true });
        pool = createPool(db.url, { max: 6 });
        await migrate(pool);
      }
      // a clean slate per test: everything hangs off tenants; vector tables stay (per index name)
      await pool!.query("TRUNCATE tenants, jobs CASCADE");
      return pgBackend(pool!, db.url, false, opts);
    }, "postgres");
  });
}

/** Both backends at once (PostgreSQL on its own database, dropped at close), for parity tests. */
export async function openBoth(opts: OpenOptions = {}): Promise<{ backends: ContentBackend[]; skipped: string | null }> {
  const sqlite = sqliteBackend(fs.mkdtempSync(path.join(os.tmpdir(), "quarry-content-")), true, opts);
  if (pgReason) return { backends: [sqlite], skipped: pgReason };
  const db = await createTestDatabase("quarry_content", { migrated: true });
  const pool = createPool(db.url, { max: 4 });
  await migrate(pool);
  const pgb = pgBackend(pool, db.url, true, opts);
  const close = pgb.close;
  pgb.close = async () => {
    await close();
    await db.drop();
  };
  return { backends: [sqlite, pgb], skipped: null };
}

/** A document as the store receives it, for conformance tests: metadata names its source. */
export const incomingDoc = (id: string, source: string, extra: Partial<IncomingDocument> = {}): IncomingDocument => ({
  id,
  source,
  title: source,
  source_type: "upload",
  kind: "text",
  content_type: "text/plain",
  size_bytes: 10,
  content_hash: `h-${source}`,
  metadata: { k: source },
  ...extra,
});
