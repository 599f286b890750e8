// The whole Store on both backends for conformance tests: a SQLite store in a temp DATA_DIR, and
// the PostgreSQL store on a fresh database per test file (emptied between tests). Without a
// PostgreSQL with pgvector the PostgreSQL half is skipped with the reason printed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import type { Store } from "../../src/store/types.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";

export type StoreKind = "sqlite" | "postgres";

export interface StoreHandle {
  store: Store;
  /** another store on the same database, as a second process would hold (closed with the test) */
  reopen(): Promise<Store>;
  /** rows of a read-only SQL query with `?` placeholders (rewritten to $n on PostgreSQL) */
  rows<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

const pgReason = await pgUnavailableReason();

const toDollar = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** Every store a test opened, closed after it (second handles first). */
const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0).reverse()) await s.close();
});

function sqliteHandle(dir: string): StoreHandle {
  const store: SqliteStore = openSqliteStore(dir, { vectorIndex: "exact" });
  opened.push(store);
  return {
    store,
    async reopen() {
      const s = openSqliteStore(dir, { vectorIndex: "exact" });
      opened.push(s);
      return s;
    },
    async rows<T>(text: string, params: unknown[] = []) {
      return store.db.prepare(text).all(...params) as T[];
    },
  };
}

async function pgHandle(url: string): Promise<StoreHandle> {
  const store: PostgresStore = await openPostgresStore(url, { poolSize: 8 });
  opened.push(store);
  return {
    store,
    async reopen() {
      const s = await openPostgresStore(url, { poolSize: 8 });
      opened.push(s);
      return s;
    },
    async rows<T>(text: string, params: unknown[] = []) {
      return (await store.pool.query(toDollar(text), params)).rows as T[];
    },
  };
}

/** Empties every table but the migration record, so each test starts from a clean database. */
async function truncateAll(url: string): Promise<void> {
  const s = await openPostgresStore(url, { poolSize: 1 });
  try {
    const t = await s.pool.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'");
    if (t.rows.length > 0) await s.pool.query(`TRUNCATE ${t.rows.map((r) => `"${r.tablename}"`).join(", ")} CASCADE`);
  } finally {
    await s.close();
  }
}

/**
 * Runs `body` once per backend. `open()` gives an empty store; everything a test opens is
 * closed after it.
 */
export function describeEachStore(title: string, body: (open: () => Promise<StoreHandle>, kind: StoreKind) => void): void {
  describe(`${title} (sqlite)`, () => {
    const dirs: string[] = [];
    afterAll(() => {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });
    body(async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-store-"));
      dirs.push(dir);
      return sqliteHandle(dir);
    }, "sqlite");
  });
  if (pgReason) {
    console.warn(`skipping the PostgreSQL half of "${title}": ${pgReason}`);
    describe.skip(`${title} (postgres)`, () => body(async () => Promise.reject(new Error(pgReason)), "postgres"));
    return;
  }
  describe(`${title} (postgres)`, () => {
    let db: TestDatabase | null = null;
    afterAll(async () => {
      await db?.drop();
    });
    body(async () => {
      // a copy of the run's migrated template where npm test made one (a quarter of migrating afresh)
      if (!db) db = await createTestDatabase("quarry_store", { migrated: true });
      else await truncateAll(db.url);
      return pgHandle(db.url);
    }, "postgres");
  });
}
