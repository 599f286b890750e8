// Databases on the Citus cluster of `npm run test:citus` (TEST_CITUS_WORKERS=host:port,...):
// Citus keeps its metadata per database, so a test database exists on every node with the
// extension, and the coordinator's copy has the workers registered. Unset, nothing here runs.
import pg from "pg";
import { dropOnWorkers, prepareCitusNodes } from "../../src/evaluation/bench/citus.js";

export const CITUS_WORKERS = (process.env.TEST_CITUS_WORKERS ?? "")
  .split(",")
  .filter(Boolean)
  .map((hp) => {
    const [host, port] = hp.split(":");
    return { host: host!, port: Number(port) };
  });

/** arbitrary constant: the advisory lock that takes test files' database preparations in turn */
const PREPARE_LOCK = 7_261_190_031;

/**
 * After CREATE DATABASE on the coordinator: the same database on each worker, then Citus in all.
 * One file at a time (an advisory lock on the coordinator): citus_add_node syncs the role to the
 * worker, and two at once fail there with "tuple concurrently updated".
 */
export async function prepareCitusDatabase(adminUrl: string, name: string): Promise<void> {
  if (CITUS_WORKERS.length === 0) return;
  const lock = new pg.Client({ connectionString: adminUrl });
  await lock.connect();
  try {
    await lock.query("SELECT pg_advisory_lock($1)", [PREPARE_LOCK]);
    await prepareCitusNodes(adminUrl, CITUS_WORKERS, name);
  } finally {
    await lock.end();
  }
}

/** After DROP DATABASE on the coordinator: the workers' copies. */
export async function dropCitusDatabase(adminUrl: string, name: string): Promise<void> {
  await dropOnWorkers(adminUrl, CITUS_WORKERS, name);
}
