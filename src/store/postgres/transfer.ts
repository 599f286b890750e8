// The writing side of quarry migrate-data into PostgreSQL. Relational rows are inserted as they
// come (ON CONFLICT DO NOTHING: a resumed run skips what a previous one wrote), each batch in one
// transaction with the entity's cursor in migrate_data_progress. Chunks go through the content
// store's own replaceDocumentIndex/storeEmbeddings, so the lexical statistics, tsvectors and
// pgvector rows are written exactly as ingest writes them; their stored vectors are reused.
import type { NewChunk } from "../content-types.js";
import type { ContentStore } from "../content-store.js";
import {
  TRANSFER_ENTITIES,
  type TransferChunk,
  type TransferCursor,
  type TransferEntity,
  type TransferProgress,
  type TransferRow,
  type TransferTarget,
} from "../transfer-types.js";
import { createPool, transaction, type Pool, type Queryable } from "./db.js";

/** The PostgreSQL table of each entity (the schema mirrors the embedded one's names). */
const TABLES: Record<TransferEntity, string> = Object.fromEntries(TRANSFER_ENTITIES.map((e) => [e, e])) as Record<TransferEntity, string>;

const PROGRESS_DDL = `CREATE TABLE IF NOT EXISTS migrate_data_progress (
  entity TEXT PRIMARY KEY,
  origin TEXT NOT NULL,
  cursor JSONB,
  done BOOLEAN NOT NULL DEFAULT FALSE,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

interface Column {
  name: string;
  /** information_schema data_type: text, boolean, jsonb, ARRAY, integer, ... */
  type: string;
}

/** The target's columns of a table (the schema is read, not assumed, so renamed columns fail loudly). */
async function columnsOf(db: Queryable, table: string): Promise<Map<string, Column>> {
  const r = await db.query<{ column_name: string; data_type: string }>(
    "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
    [table],
  );
  if (r.rows.length === 0) throw new Error(`the target database has no table ${table}`);
  return new Map(r.rows.map((c) => [c.column_name, { name: c.column_name, type: c.data_type }]));
}

/** A canonical value as the column takes it: JSON text for text/json columns, arrays as arrays. */
function param(v: unknown, col: Column): unknown {
  if (v === null || v === undefined) return null;
  if (col.type === "ARRAY") return v;
  if (typeof v === "object") return JSON.stringify(v);
  return v;
}

async function insertRows(db: Queryable, table: string, columns: Map<string, Column>, rows: TransferRow[]): Promise<void> {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]);
  const unknown = cols.filter((c) => !columns.has(c));
  if (unknown.length) throw new Error(`the target's ${table} has no column ${unknown.join(", ")}; its schema differs from this migrate-data`);
  const values: unknown[] = [];
  const tuples = rows.map((r) => `(${cols.map((c) => (values.push(param(r[c], columns.get(c)!)), `$${values.length}`)).join(", ")})`);
  await db.query(`INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING`, values);
}

async function saveProgress(db: Queryable, origin: string, entity: TransferEntity, cursor: TransferCursor | null, done: boolean): Promise<void> {
  await db.query(
    `INSERT INTO migrate_data_progress (entity, origin, cursor, done) VALUES ($1, $2, $3, $4)
     ON CONFLICT (entity) DO UPDATE SET cursor = coalesce(excluded.cursor, migrate_data_progress.cursor), done = excluded.done, updated_at = now()`,
    [entity, origin, cursor === null ? null : JSON.stringify(cursor), done],
  );
}

/** Groups a batch of chunk rows (document, position order) by document. */
function byDocument(rows: TransferChunk[]): TransferChunk[][] {
  const out: TransferChunk[][] = [];
  for (const r of rows) {
    const cur = out.at(-1);
    if (cur && cur[0].document_id === r.document_id) cur.push(r);
    else out.push([r]);
  }
  return out;
}

/**
 * Writes one document's chunks through the content store, with their stored vectors, then puts
 * back the document's status and updated_at (the store's indexing sets them to indexed and now).
 */
async function writeDocumentChunks(pool: Pool, content: ContentStore, chunks: TransferChunk[], ensureIndex: (name: string, dim: number) => Promise<void>): Promise<void> {
  const { tenant_id: tenantId, document_id: documentId } = chunks[0];
  const doc = (
    await pool.query<{ title: string; metadata: unknown; status: string; updated_at: string }>(
      "SELECT title, metadata, status, updated_at FROM documents WHERE tenant_id = $1 AND id = $2",
      [tenantId, documentId],
    )
  ).rows[0];
  if (!doc) throw new Error(`chunks of document ${documentId} (tenant ${tenantId}) whose document row is not in the target`);
  const metadata = (typeof doc.metadata === "string" ? JSON.parse(doc.metadata) : doc.metadata) as Record<string, unknown>;
  const newChunks: NewChunk[] = chunks.map((c) => ({ position: c.position, text: c.text, heading_path: c.heading_path, token_count: c.token_count, metadata: c.metadata }));
  const indexes = new Set(chunks.map((c) => c.embedded_in));
  const allIn = indexes.size === 1 && chunks[0].embedded_in !== null ? chunks[0].embedded_in : null;
  for (const c of chunks) if (c.embedded_in && c.vector) await ensureIndex(c.embedded_in, c.vector.length);
  await content.replaceDocumentIndex(
    tenantId,
    documentId,
    { title: doc.title, metadata },
    newChunks,
    allIn ? { indexName: allIn, values: chunks.map((c) => c.vector!) } : null,
  );
  if (!allIn && chunks.some((c) => c.vector)) {
    // some chunks embedded (or in different indexes): map positions to the target's chunk ids
    const { chunks: stored } = await content.listChunks(tenantId, documentId, chunks.length + 1);
    const idAt = new Map(stored.map((s) => [s.position, s.id]));
    for (const name of indexes) {
      if (!name) continue;
      const items = chunks.filter((c) => c.embedded_in === name && c.vector).map((c) => ({ chunkId: idAt.get(c.position)!, vector: c.vector! }));
      if (items.length) await content.storeEmbeddings(name, items);
    }
  }
  await pool.query("UPDATE documents SET status = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2", [tenantId, documentId, doc.status, doc.updated_at]);
}

/** Opens the target: `content` is the PostgreSQL store's content store on the same database. */
export async function openPostgresTransferTarget(url: string, content: ContentStore): Promise<TransferTarget> {
  const pool = createPool(url, { max: 4 });
  let origin = "";
  const columns = new Map<string, Map<string, Column>>();
  const ensured = new Set<string>();
  const ensureIndex = async (name: string, dim: number) => {
    if (ensured.has(name)) return;
    await content.ensureVectorIndex(name, dim);
    ensured.add(name);
  };
  return {
    async begin(from) {
      origin = from;
      await pool.query(PROGRESS_DDL);
      const rows = (await pool.query<{ entity: TransferEntity; origin: string; cursor: TransferCursor | null; done: boolean }>("SELECT entity, origin, cursor, done FROM migrate_data_progress")).rows;
      const other = rows.find((r) => r.origin !== from);
      if (other) throw new Error(`the target database holds a migration from ${other.origin}, not ${from}; migrate into an empty database`);
      if (rows.length === 0) {
        const n = Number((await pool.query<{ n: number }>("SELECT count(*) AS n FROM tenants")).rows[0].n);
        if (n > 0) throw new Error(`the target database already holds ${n} tenants that quarry migrate-data did not write; migrate into an empty database`);
      }
      return new Map<TransferEntity, TransferProgress>(rows.map((r) => [r.entity, { cursor: r.cursor, done: r.done }]));
    },
    async writeBatch(entity, rows, cursor) {
      if (entity === "chunks") {
        for (const doc of byDocument(rows as unknown as TransferChunk[])) await writeDocumentChunks(pool, content, doc, ensureIndex);
        await saveProgress(pool, origin, entity, cursor, false);
        return;
      }
      const table = TABLES[entity];
      if (!columns.has(table)) columns.set(table, await columnsOf(pool, table));
      await transaction(pool, async (c) => {
        await insertRows(c, table, columns.get(table)!, rows);
        await saveProgress(c, origin, entity, cursor, false);
      });
    },
    async finish(entity) {
      await saveProgress(pool, origin, entity, null, true);
    },
    async count(entity) {
      return Number((await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${TABLES[entity]}`)).rows[0].n);
    },
    async countVectors() {
      return Number((await pool.query<{ n: number }>("SELECT count(*) AS n FROM chunks WHERE embedded_in IS NOT NULL")).rows[0].n);
    },
    async close() {
      await pool.end();
    },
  };
}
