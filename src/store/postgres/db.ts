// The scale-out database: a pooled connection to PostgreSQL (with pgvector) and its numbered
// migrations. Migrations run at open under an advisory lock, so several API and worker
// processes starting together apply each file exactly once.
import pg from "pg";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { distribute, isCitus } from "./distribution.js";
import { splitStatements } from "./sql-statements.js";

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
/** what a query needs: the pool itself, or a client inside a transaction */
export type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** arbitrary constant: the advisory lock key that serialises migrations across processes */
const MIGRATION_LOCK = 7_261_190_011;

// BIGINT (int8) columns come back as strings by default; counts and sizes here fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface PoolOptions {
  /** connections per process (default 10) */
  max?: number;
  /**
   * commit without waiting for the WAL flush (synchronous_commit off): for counters only, where a
   * crash may forget the last fraction of a second of increments but never corrupts anything
   */
  asyncCommit?: boolean;
}

export function createPool(url: string, opts: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
    // JIT off: a search's estimated cost often passes jit_above_cost (always, once the graph scan
    // is forced below), and compiling takes 100-300 ms against a few ms of execution
    options: ["-c jit=off", opts.asyncCommit ? "-c synchronous_commit=off" : ""].join(" ").trim(),
  });
  // an idle client losing its connection (database restart) must not crash the process
  pool.on("error", () => {});
  return pool;
}

/**
 * Applies the migrations not yet recorded, each in its own transaction, one process at a time;
 * on a Citus database then places every table not placed yet (distribution.ts). `through` stops
 * after that file (test/citus/upgrade.test.ts: a cluster distributed at an older schema).
 */
export async function migrate(pool: Pool, opts: { through?: string } = {}): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
    const done = new Set((await client.query<{ name: string }>("SELECT name FROM schema_migrations")).rows.map((r) => r.name));
    // on Citus a migration may add a trigger to a distributed table (see distribution.ts)
    const citus = await isCitus(client);
    if (citus) await client.query("SET citus.enable_unsafe_triggers = on");
    const files = fs.readdirSync(MIGRATIONS_DIR).filter((f) => /^\d+_.*\.sql$/.test(f)).sort();
    for (const f of files) {
      if (done.has(f)) continue;
      if (opts.through !== undefined && f > opts.through) break;
      const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, f), "utf8");
      await client.query("BEGIN");
      try {
        // one statement at a time: Citus forwards some DDL to its workers as the query string sent
        for (const statement of splitStatements(sql)) await client.query(statement);
        await client.query("INSERT INTO schema_migrations (name) VALUES ($1)", [f]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`PostgreSQL migration ${f} failed: ${(err as Error).message}`);
      }
      applied.push(f);
    }
    await distribute(client);
    if (citus) await client.query("RESET citus.enable_unsafe_triggers");
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}

/** Runs `fn` in a transaction on one pooled client; rolls back and rethrows on error. */
export async function transaction<T>(pool: Pool, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await fn(client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/** PostgreSQL reports unique violations as SQLSTATE 23505. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "23505";
}
