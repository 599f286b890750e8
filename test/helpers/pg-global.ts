// Global teardown of the PostgreSQL passes: drops the databases this run's HTTP suites left for
// restarts (servers opened on a caller's DATA_DIR keep theirs until the end of the run). Only this
// run's (QUARRY_TEST_RUN, vitest.config.ts): another run on the same server keeps its own.
import pg from "pg";
import { PG_ADMIN_URL } from "./pg.js";

export async function teardown(): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const r = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1)", [`quarry_http_${process.env.QUARRY_TEST_RUN ?? "x"}_`]);
    for (const { datname } of r.rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await c.end();
  }
}
