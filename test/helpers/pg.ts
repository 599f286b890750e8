// A fresh PostgreSQL database per test file (created from the server at TEST_PG_URL, default the
// local trust-auth server), dropped at the end. Tests never depend on state another run left.
import pg from "pg";
import crypto from "node:crypto";
import { admin } from "../../src/evaluation/bench/postgres.js";
import { CITUS_WORKERS, dropCitusDatabase, prepareCitusDatabase } from "./citus.js";

export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** null (with the reason) when no PostgreSQL with pgvector answers, so suites can skip and say why */
export async function pgUnavailableReason(): Promise<string | null> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    const r = await c.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    if (r.rowCount === 0) return "pgvector is not installed in this PostgreSQL (see docs/scale-out.md)";
    return null;
  } catch (err) {
    return `PostgreSQL not reachable at ${PG_ADMIN_URL}: ${(err as Error).message}`;
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * This run's database with every migration applied (test/helpers/pg-global.ts makes it once):
 * copying it takes a quarter of the time of migrating a fresh database (0.25 s against 0.65-0.8 s
 * wall, most of it PostgreSQL's CPU), and the HTTP suites' servers ask for hundreds.
 */
export const migratedTemplate = () => `quarry_tmpl_${process.env.QUARRY_TEST_RUN ?? "x"}`;

/** The name prefix of this run's HTTP suites' databases (test/kit/server.ts), dropped at its end. */
export const httpDatabasePrefix = () => `quarry_http_${process.env.QUARRY_TEST_RUN ?? "x"}`;

/**
 * An empty database, or with `migrated` a copy of this run's migrated template when it exists
 * (the store's migrate() then finds nothing to do). Never on Citus: its databases are prepared on
 * every node (prepareCitusDatabase), which a template on the coordinator cannot carry.
 */
export async function createTestDatabase(prefix = "quarry_test", opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `${prefix}_${crypto.randomBytes(6).toString("hex")}`;
  await withAdmin(async (admin) => {
    const template = opts.migrated && CITUS_WORKERS.length === 0 ? migratedTemplate() : null;
    const copy = template && (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [template])).rowCount;
    // FILE_COPY copies the template's files instead of writing every page through the WAL (the
    // default since PostgreSQL 15): 90 against 140-200 ms of PostgreSQL's CPU a copy, and its drop
    // about half the time (80-160 against 250-320 ms); a run makes about a hundred
    await admin.query(copy ? `CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY = FILE_COPY` : `CREATE DATABASE ${name}`);
    // a test database outlives no crash of the server: its commits need not wait for the WAL flush
    // (not on Citus, which would carry the ALTER to workers that do not have the database yet)
    if (CITUS_WORKERS.length === 0) await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  });
  await prepareCitusDatabase(PG_ADMIN_URL, name);
  return {
    url: databaseUrl(name),
    name,
    async drop() {
      await withAdmin((a) => a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      await dropCitusDatabase(PG_ADMIN_URL, name);
    },
  };
}

/** Runs `fn` on a connection to the admin database of TEST_PG_URL, closed afterwards. */
export const withAdmin = <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => admin(PG_ADMIN_URL, fn);

/** The URL of database `name` on the TEST_PG_URL server. */
export function databaseUrl(name: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}
