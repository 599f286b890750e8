// Databases on the Citus cluster of `npm run test:citus` (TEST_CITUS_WORKERS=host:port,...):
// Citus keeps its metadata per database, so a test database exists on every node with the
// extension, and the coordinator's copy has the workers registered. Unset, nothing here runs.
import pg from "pg";

export const CITUS_WORKERS = (process.env.TEST_CITUS_WORKERS ?? "")
  .split(",")
  .filter(Boolean)
  .map((hp) => {
    const [host, port] = hp.split(":");
    return { host: host!, port: Number(port) };
  });

async function onNode(url: string, statements: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

const nodeUrl = (adminUrl: string, host: string, port: number, db: string) => {
  const u = new URL(adminUrl);
  u.hostname = host;
  u.port = String(port);
  u.pathname = `/${db}`;
  return u.toString();
};

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
    await prepareNodes(adminUrl, name);
  } finally {
    await lock.end();
  }
}

async function prepareNodes(adminUrl: string, name: string): Promise<void> {
  const coordinator = new URL(adminUrl);
  await Promise.all(
    CITUS_WORKERS.map(async (w) => {
      await onNode(nodeUrl(adminUrl, w.host, w.port, "postgres"), [`CREATE DATABASE ${name}`]);
      await onNode(nodeUrl(adminUrl, w.host, w.port, name), ["CREATE EXTENSION citus"]);
    }),
  );
  await onNode(nodeUrl(adminUrl, coordinator.hostname, Number(coordinator.port), name), [
    "CREATE EXTENSION citus",
    `SELECT citus_set_coordinator_host('${coordinator.hostname}', ${Number(coordinator.port)})`,
    ...CITUS_WORKERS.map((w) => `SELECT citus_add_node('${w.host}', ${w.port})`),
  ]);
}

/** After DROP DATABASE on the coordinator: the workers' copies. */
export async function dropCitusDatabase(adminUrl: string, name: string): Promise<void> {
  await Promise.all(
    CITUS_WORKERS.map((w) => onNode(nodeUrl(adminUrl, w.host, w.port, "postgres"), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])),
  );
}
