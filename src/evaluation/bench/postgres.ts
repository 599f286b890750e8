// The bench's PostgreSQL deployment: a database of its own on --pg-url (or on a Citus cluster's
// coordinator, citus.ts, made on every node and distributed by migrate), filled by migrate-data
// from the SQLite load (same tenant, collection and document ids, the same stored vectors, so both
// stores answer the same queries over the same embeddings), and a runtime on it. Dropped at the
// end unless --keep.
import crypto from "node:crypto";
import pg from "pg";
import type { Runtime } from "../../runtime.js";
import { migrateData, renderCounts } from "../../store/migrate-data.js";
import { openSqliteTransferSource } from "../../store/sqlite/transfer.js";
import { openPostgresTransferTarget } from "../../store/postgres/transfer.js";
import { openBenchRuntime } from "./load.js";
import type { BenchCitus } from "./citus.js";

export interface BenchPostgres {
  rt: Runtime;
  /** DATABASE_URL of the bench database */
  url: string;
  /** seconds migrate-data took to copy the load */
  copySeconds: number;
  close(): Promise<void>;
}

/** `fn` on one connection to `url`, closed after */
export async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A database of the bench's own on the server at `pgUrl`; `drop` removes it unless `keep`. With
 * `citus`, `pgUrl` is its coordinator and the database is made (and dropped) on every node.
 */
export async function createBenchDatabase(o: { pgUrl: string; keep: boolean; citus?: BenchCitus }, log: (msg: string) => void): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `quarry_benchpg_${crypto.randomBytes(5).toString("hex")}`;
  await admin(o.pgUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  await o.citus?.prepare(name);
  const u = new URL(o.pgUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  return {
    url,
    async drop() {
      if (o.keep) return log(`kept the PostgreSQL bench database: ${url}`);
      await admin(o.pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      await o.citus?.dropOnWorkers(name);
    },
  };
}

export async function openBenchPostgres(o: { pgUrl: string; keep: boolean; citus?: BenchCitus }, sqliteDataDir: string, log: (msg: string) => void): Promise<BenchPostgres> {
  const { url, drop } = await createBenchDatabase(o, log);
  let rt: Runtime | null = null;
  try {
    // the files stay in the SQLite load's DATA_DIR, which this runtime shares (read as earlier local files)
    rt = await openBenchRuntime(sqliteDataDir, log, { DATABASE_URL: url });
    log(`copying the load into ${o.citus ? "Citus" : "PostgreSQL"} (${new URL(url).pathname.slice(1)}) with migrate-data...`);
    const t0 = performance.now();
    const source = openSqliteTransferSource(sqliteDataDir);
    const target = await openPostgresTransferTarget(url, rt.store.content);
    try {
      // the originals stay in DATA_DIR/files, which the runtime reads as earlier local files
      const lines = await migrateData({ from: sqliteDataDir, to: url, filesTo: null, batchSize: 500 }, source, target, null);
      const bad = lines.filter((l) => l.status !== "OK");
      if (bad.length) throw new Error(`migrate-data counts differ:\n${renderCounts(lines)}`);
    } finally {
      await target.close();
      await source.close();
    }
    const copySeconds = (performance.now() - t0) / 1000;
    log(`  copied in ${copySeconds.toFixed(0)} s`);
    // a settled database, as autovacuum leaves one after a bulk load: planner statistics, and
    // visibility maps so the postings' index-only scans skip the heap (a server may run with
    // autovacuum off; this one's was, and every posting read then visited its heap page too)
    await admin(url, (c) => c.query("VACUUM ANALYZE"));
    const opened = rt;
    return {
      rt: opened,
      url,
      copySeconds,
      async close() {
        await opened.close();
        await drop();
      },
    };
  } catch (err) {
    await rt?.close();
    await drop();
    throw err;
  }
}
