// Global setup and teardown of the PostgreSQL passes (projects pg and pg-redis; vitest may call
// it once per project, so each step is idempotent). Setup migrates this run's template database,
// which the HTTP suites' servers get copies of (createTestDatabase's `migrated`); teardown drops it
// and the databases this run's HTTP suites left for restarts (servers opened on a caller's
// DATA_DIR keep theirs until the end of the run). Only this run's (QUARRY_TEST_RUN,
// vitest.config.ts): another run on the same server keeps its own.
import { createPool, migrate } from "../../src/store/postgres/db.js";
import { CITUS_WORKERS } from "./citus.js";
import { databaseUrl, httpDatabasePrefix, migratedTemplate, withAdmin } from "./pg.js";

/** kept on globalThis: each project may import this module afresh (as test/helpers/server-build.ts) */
const made = Symbol.for("quarry.testPgTemplate");

export async function setup(): Promise<void> {
  if (CITUS_WORKERS.length > 0) return; // Citus databases are prepared node by node, never copied
  const g = globalThis as { [made]?: Promise<void> };
  g[made] ??= (async () => {
    const name = migratedTemplate();
    await withAdmin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${name}`);
    });
    const pool = createPool(databaseUrl(name));
    try {
      await migrate(pool);
    } finally {
      await pool.end(); // a template is copied only while nobody is connected to it
    }
  })();
  await g[made];
}

export async function teardown(): Promise<void> {
  await withAdmin(async (c) => {
    const r = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [`${httpDatabasePrefix()}_`]);
    for (const { datname } of r.rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await c.query(`DROP DATABASE IF EXISTS ${migratedTemplate()} WITH (FORCE)`);
  });
}
