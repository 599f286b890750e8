// The bench's Citus cluster: the one at --citus-url (a coordinator whose workers are registered,
// given as --citus-workers host:port,...) or, without it, a throwaway coordinator and two workers
// started on loopback by scripts/citus/cluster.mjs (what `npm run test:citus` starts) and stopped
// at the end. A bench database is made on every node with the citus extension, the workers
// registered in the coordinator's copy; `quarry migrate` (every runtime's start) then sees Citus
// and distributes the tables by tenant.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pg from "pg";

export interface CitusNode {
  host: string;
  port: number;
}

export interface BenchCitus {
  /** the coordinator's maintenance database, where bench databases are created */
  adminUrl: string;
  workers: CitusNode[];
  /** makes database `name` (already created on the coordinator) usable: on every worker, citus everywhere */
  prepare(name: string): Promise<void>;
  /** drops database `name` on the workers (the coordinator's copy is the caller's) */
  dropOnWorkers(name: string): Promise<void>;
  stop(): void;
}

/** `adminUrl` with another node and database */
export const nodeUrl = (adminUrl: string, n: CitusNode, db: string) => {
  const u = new URL(adminUrl);
  u.hostname = n.host;
  u.port = String(n.port);
  u.pathname = `/${db}`;
  return u.toString();
};

/** runs `statements` in turn on one node's database */
export async function onNode(url: string, statements: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

/** "host:port,host:port" -> nodes; a clear error for anything else */
export function parseWorkers(list: string): CitusNode[] {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((hp) => {
      const m = /^([^:]+):(\d+)$/.exec(hp);
      if (!m) throw new Error(`--citus-workers: "${hp}" is not host:port`);
      return { host: m[1]!, port: Number(m[2]) };
    });
}

/**
 * Makes database `name` (already created on the coordinator at `adminUrl`) usable by Citus: the
 * same database on each worker, the extension everywhere, the workers registered in the
 * coordinator's copy (Citus keeps its metadata per database).
 */
export async function prepareCitusNodes(adminUrl: string, workers: CitusNode[], name: string): Promise<void> {
  const coordinator = new URL(adminUrl);
  const port = Number(coordinator.port || 5432);
  await Promise.all(
    workers.map(async (w) => {
      await onNode(nodeUrl(adminUrl, w, "postgres"), [`CREATE DATABASE ${name}`]);
      await onNode(nodeUrl(adminUrl, w, name), ["CREATE EXTENSION citus"]);
    }),
  );
  await onNode(nodeUrl(adminUrl, { host: coordinator.hostname, port }, name), [
    "CREATE EXTENSION citus",
    `SELECT citus_set_coordinator_host('${coordinator.hostname}', ${port})`,
    ...workers.map((w) => `SELECT citus_add_node('${w.host}', ${w.port})`),
  ]);
}

/** After DROP DATABASE on the coordinator: the workers' copies. */
export async function dropOnWorkers(adminUrl: string, workers: CitusNode[], name: string): Promise<void> {
  await Promise.all(workers.map((w) => onNode(nodeUrl(adminUrl, w, "postgres"), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])));
}

function benchCitus(adminUrl: string, workers: CitusNode[], stop: () => void): BenchCitus {
  return {
    adminUrl,
    workers,
    stop,
    prepare: (name) => prepareCitusNodes(adminUrl, workers, name),
    dropOnWorkers: (name) => dropOnWorkers(adminUrl, workers, name),
  };
}

/** scripts/citus/*.mjs, from the repository this file is in (the bench runs from a checkout) */
async function citusScript(name: string): Promise<any> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
  return import(pathToFileURL(path.join(root, "scripts", "citus", name)).href);
}

/** The cluster at `url` (workers listed), or a fresh one on loopback when `url` is null. */
export async function openBenchCitus(o: { url: string | null; workers: string | null }, log: (msg: string) => void): Promise<BenchCitus> {
  if (o.url) {
    if (!o.workers) throw new Error("--citus-url needs --citus-workers host:port,... (the workers to make the bench database on)");
    return benchCitus(o.url, parseWorkers(o.workers), () => {});
  }
  const pgBin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
  const reason = (await citusScript("install.mjs")).ensureCitus(pgBin, log) as string | null;
  if (reason) throw new Error(`no Citus cluster: ${reason}`);
  const cluster = await (await citusScript("cluster.mjs")).startCluster({ pgBin, log });
  const workers = (cluster.workers as { port: number }[]).map((w) => ({ host: "127.0.0.1", port: w.port }));
  return benchCitus(cluster.url as string, workers, () => cluster.stop());
}
