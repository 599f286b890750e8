// Operator tasks on the embedded database file: migrations (quarry migrate), an online backup that
// is consistent while the service writes (SQLite's backup API copies a snapshot page by page), and
// the integrity check a restore runs before it hands the file over.
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import fs from "node:fs";
import path from "node:path";
import { openDatabase } from "./db.js";

export const DB_FILE = "quarry.db";

function appliedMigrations(db: Database.Database): string[] {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return [];
  return (db.prepare("SELECT name FROM schema_migrations ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

/** Applies pending migrations to DATA_DIR/quarry.db (creating it); returns what ran and what is now applied. */
export function migrateSqlite(dataDir: string): { applied: string[]; total: string[] } {
  const file = path.join(dataDir, DB_FILE);
  let before: string[] = [];
  if (fs.existsSync(file)) {
    const raw = new Database(file, { readonly: true, fileMustExist: true });
    try {
      before = appliedMigrations(raw);
    } finally {
      raw.close();
    }
  }
  const db = openDatabase(file);
  try {
    const total = appliedMigrations(db);
    return { applied: total.filter((n) => !before.includes(n)), total };
  } finally {
    db.close();
  }
}

/** Copies DATA_DIR/quarry.db to `dest` while other connections keep writing; returns the migrations it holds. */
export async function backupSqlite(dataDir: string, dest: string): Promise<{ migrations: string[] }> {
  const file = path.join(dataDir, DB_FILE);
  if (!fs.existsSync(file)) throw new Error(`no database at ${file}`);
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    await db.backup(dest);
    return { migrations: appliedMigrations(db) };
  } finally {
    db.close();
  }
}

/** PRAGMA integrity_check of a database file: null when it is sound, else the first problems. */
export function integrityProblems(file: string): string | null {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    sqliteVec.load(db); // the vector tables are checked through their module
    const rows = db.pragma("integrity_check") as { integrity_check: string }[];
    const bad = rows.map((r) => r.integrity_check).filter((m) => m !== "ok");
    return bad.length ? bad.slice(0, 3).join("; ") : null;
  } finally {
    db.close();
  }
}
