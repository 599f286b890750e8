// Raw SQL on a server's own database, whichever store it runs on, for tests that check or age
// stored rows (hashes only, expiry, throttle windows, index rows left behind). `?` placeholders are
// rewritten to $1.. on PostgreSQL; write SQL both dialects accept. storeSql reads an in-process
// server's store; openDeploymentSql opens the database of a server run as a child process.
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import * as sqliteVec from "sqlite-vec";
import type { Store } from "../../src/store/types.js";
import type { SqliteStore } from "../../src/store/sqlite/index.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";
import { vectorTable } from "../../src/store/json.js";

export interface StoreSql {
  kind: "sqlite" | "postgres";
  all<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<T | undefined>;
  /** runs a statement; resolves with the number of rows it changed */
  run(text: string, ...params: unknown[]): Promise<number>;
  /** the single number a `SELECT count(*) AS n ...` returns */
  count(text: string, ...params: unknown[]): Promise<number>;
  /** chunks (all, or of these ids) that have lexical index rows (BM25 postings) */
  lexicalChunks(ids?: number[]): Promise<number>;
  /** vector rows (all, or of these chunk ids) over every vector index */
  vectorRows(ids?: number[]): Promise<number>;
}

export interface DeploymentSql extends StoreSql {
  close(): Promise<void>;
}

const toDollar = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

function postgresSql(q: Pick<pg.Pool, "query"> | Pick<pg.Client, "query">): StoreSql {
  const all = async <T>(text: string, ...params: unknown[]) => (await q.query(toDollar(text), params)).rows as T[];
  const count = async (text: string, ...params: unknown[]) => Number((await all<{ n: number | string }>(text, ...params))[0]!.n);
  return {
    kind: "postgres",
    all,
    get: async <T>(text: string, ...params: unknown[]) => (await all<T>(text, ...params))[0],
    run: async (text, ...params) => (await q.query(toDollar(text), params)).rowCount ?? 0,
    count,
    lexicalChunks: (ids) =>
      ids
        ? count("SELECT count(DISTINCT chunk_id) AS n FROM lexical_postings WHERE chunk_id = ANY(?::bigint[])", ids)
        : count("SELECT count(DISTINCT chunk_id) AS n FROM lexical_postings"),
    async vectorRows(ids) {
      let n = 0;
      for (const r of await all<{ name: string }>("SELECT name FROM vector_indexes")) {
        const t = vectorTable(r.name);
        n += ids ? await count(`SELECT count(*) AS n FROM ${t} WHERE chunk_id = ANY(?::bigint[])`, ids) : await count(`SELECT count(*) AS n FROM ${t}`);
      }
      return n;
    },
  };
}

function sqliteSql(db: Database.Database): StoreSql {
  const count = async (text: string, ...params: unknown[]) => (db.prepare(text).get(...params) as { n: number }).n;
  return {
    kind: "sqlite",
    all: async <T>(text: string, ...params: unknown[]) => db.prepare(text).all(...params) as T[],
    get: async <T>(text: string, ...params: unknown[]) => db.prepare(text).get(...params) as T | undefined,
    run: async (text, ...params) => db.prepare(text).run(...params).changes,
    count,
    async lexicalChunks(ids) {
      if (!ids) return count("SELECT count(*) AS n FROM chunk_terms");
      let n = 0;
      for (const id of ids) n += await count("SELECT count(*) AS n FROM chunk_terms WHERE chunk_id = ?", id);
      return n;
    },
    async vectorRows(ids) {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vec\\_%' ESCAPE '\\' AND sql LIKE '%vec0%'").all() as { name: string }[];
      let n = 0;
      for (const t of tables) {
        if (!ids) n += await count(`SELECT count(*) AS n FROM ${t.name}`);
        else for (const id of ids) n += await count(`SELECT count(*) AS n FROM ${t.name} WHERE chunk_id = ?`, BigInt(id));
      }
      return n;
    },
  };
}

export function storeSql(store: Store): StoreSql {
  return store.kind === "postgres" ? postgresSql((store as PostgresStore).pool) : sqliteSql((store as SqliteStore).db);
}

/**
 * The PostgreSQL database at `databaseUrl` when given, else the SQLite file of `dataDir` (read-only
 * unless `write`: beside a running server, a test only reads).
 */
export async function openDeploymentSql(dataDir: string, databaseUrl: string | null, opts: { write?: boolean } = {}): Promise<DeploymentSql> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return { ...postgresSql(client), close: () => client.end() };
  }
  const db = new Database(path.join(dataDir, "quarry.db"), { readonly: !opts.write });
  db.pragma("busy_timeout = 5000");
  sqliteVec.load(db);
  return { ...sqliteSql(db), close: async () => void db.close() };
}
