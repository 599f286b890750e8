// The reading side of quarry migrate-data over an embedded deployment's database: each entity in
// key order (keyset paging, never OFFSET), turned into canonical rows (store/transfer-types.ts).
// Opens the file read-only, so a running service is not disturbed and nothing is migrated here.
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import fs from "node:fs";
import path from "node:path";
import {
  TRANSFER_KEYS,
  type TransferBatch,
  type TransferChunk,
  type TransferCursor,
  type TransferEntity,
  type TransferRow,
  type TransferSource,
} from "../transfer-types.js";
import { parseJson, vectorTable } from "./content/json.js";

/** How each entity's columns differ from their canonical form. */
interface Columns {
  /** TEXT columns holding JSON (parsed into values) */
  json?: Record<string, unknown>;
  /** INTEGER 0/1 columns (booleans) */
  bool?: string[];
}

const COLUMNS: Record<TransferEntity, Columns> = {
  tenants: { bool: ["verified"] },
  users: {},
  api_keys: { json: { scopes: [] } },
  sessions: {},
  account_tokens: {},
  usage_counters: {},
  data_sources: { json: { configuration: {} } },
  collections: { json: { settings: {} } },
  collection_sources: {},
  documents: { json: { metadata: {} } },
  chunks: { json: { heading_path: [], metadata: {} } },
  crawl_jobs: { bool: ["render_js"], json: { include_paths: [] } },
  crawl_pages: { json: { links: [] } },
  crawl_failures: {},
  benchmark_suites: { json: { origin: {} } },
  benchmark_cases: { json: { relevant_document_ids: [] } },
  benchmark_runs: { json: { metrics: {}, results: [] } },
  audit_log: { json: { detail: {} } },
};

function canonical(entity: TransferEntity, raw: Record<string, unknown>): TransferRow {
  const c = COLUMNS[entity];
  const row: TransferRow = { ...raw };
  for (const [col, fallback] of Object.entries(c.json ?? {})) row[col] = parseJson(raw[col] as string | null, fallback);
  for (const col of c.bool ?? []) row[col] = raw[col] === 1 || raw[col] === true;
  return row;
}

export interface SqliteTransferSource extends TransferSource {
  /** the deployment's stored originals (DATA_DIR/files) */
  readonly filesDir: string;
}

/** Opens DATA_DIR/quarry.db for reading; throws when the directory holds no Quarry database. */
export function openSqliteTransferSource(dataDir: string): SqliteTransferSource {
  const file = path.join(dataDir, "quarry.db");
  if (!fs.existsSync(file)) throw new Error(`no Quarry database at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 5000");
  sqliteVec.load(db);
  const vectorQueries = new Map<string, Database.Statement>();
  const vectorOf = (indexName: string, chunkId: number): Float32Array | null => {
    let q = vectorQueries.get(indexName);
    if (!q) {
      q = db.prepare(`SELECT embedding FROM ${vectorTable(indexName)} WHERE chunk_id = ?`);
      vectorQueries.set(indexName, q);
    }
    const r = q.get(BigInt(chunkId)) as { embedding: Buffer } | undefined;
    if (!r) return null;
    // copy: the buffer may be a view into memory better-sqlite3 reuses
    const bytes = Uint8Array.from(r.embedding);
    return new Float32Array(bytes.buffer, 0, bytes.byteLength / 4);
  };

  const chunkRow = (raw: Record<string, unknown>): TransferChunk => {
    const row = canonical("chunks", raw) as TransferRow & { id: number; embedded_in: string | null };
    const vector = row.embedded_in ? vectorOf(row.embedded_in, row.id) : null;
    const { id: _id, ...rest } = row;
    // a chunk marked embedded whose vector row is gone is copied as not embedded (re-embedded later)
    return { ...(rest as Omit<TransferChunk, "vector">), embedded_in: vector ? row.embedded_in : null, vector };
  };

  return {
    filesDir: path.join(dataDir, "files"),
    async readBatch(entity: TransferEntity, after: TransferCursor | null, limit: number): Promise<TransferBatch> {
      const key = TRANSFER_KEYS[entity];
      const cols = key.join(", ");
      const where = after ? `WHERE (${cols}) > (${key.map(() => "?").join(", ")})` : "";
      if (entity === "chunks") {
        const raws = db
          .prepare(
            `SELECT * FROM chunks WHERE document_id IN (SELECT DISTINCT document_id FROM chunks ${where} ORDER BY document_id LIMIT ?)
             ORDER BY document_id, position`,
          )
          .all(...(after ?? []), limit) as Record<string, unknown>[];
        const lastRaw = raws.at(-1);
        return { rows: raws.map((r) => chunkRow(r) as unknown as TransferRow), last: lastRaw ? [lastRaw.document_id as string] : null };
      }
      const raws = db.prepare(`SELECT * FROM ${entity} ${where} ORDER BY ${cols} LIMIT ?`).all(...(after ?? []), limit) as Record<string, unknown>[];
      const lastRaw = raws.at(-1);
      return { rows: raws.map((r) => canonical(entity, r)), last: lastRaw ? key.map((k) => lastRaw[k] as string | number) : null };
    },
    async count(entity: TransferEntity): Promise<number> {
      return (db.prepare(`SELECT count(*) AS n FROM ${entity}`).get() as { n: number }).n;
    },
    async countVectors(): Promise<number> {
      let n = 0;
      const indexes = db.prepare("SELECT DISTINCT embedded_in AS i FROM chunks WHERE embedded_in IS NOT NULL").all() as { i: string }[];
      for (const { i } of indexes) {
        const t = vectorTable(i);
        n += (db.prepare(`SELECT count(*) AS n FROM chunks c WHERE c.embedded_in = ? AND EXISTS (SELECT 1 FROM ${t} v WHERE v.chunk_id = c.id)`).get(i) as { n: number }).n;
      }
      return n;
    },
    async close() {
      db.close();
    },
  };
}
