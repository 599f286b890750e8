// A fresh PostgreSQL database per test file (created from the server at TEST_PG_URL, default the
// local trust-auth server), dropped at the end. Tests never depend on state another run left.
import pg from "pg";
import crypto from "node:crypto";
import { dropCitusDatabase, prepareCitusDatabase } from "./citus.js";

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

export async function createTestDatabase(prefix = "quarry_test"): Promise<TestDatabase> {
  const name = `${prefix}_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  await prepareCitusDatabase(PG_ADMIN_URL, name);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const a = new pg.Client({ connectionString: PG_ADMIN_URL });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
      await dropCitusDatabase(PG_ADMIN_URL, name);
    },
  };
}
