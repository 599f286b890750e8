// Global teardown of `npm run test:pg`: drops the databases the HTTP suites left for restarts
// (servers opened on a caller's DATA_DIR keep theirs until the end of the run).
import pg from "pg";
import { PG_ADMIN_URL } from "./pg.js";

export async function teardown(): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const r = await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'quarry\\_http\\_%'");
    for (const { datname } of r.rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await c.end();
  }
}
