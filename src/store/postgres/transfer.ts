// The writing side of quarry migrate-data into PostgreSQL. Relational rows are inserted as they
// come (ON CONFLICT DO NOTHING: a resumed run skips what a previous one wrote), each batch in one
// transaction with the entity's cursor in migrate_data_progress. Chunks go through the content
// store's own replaceDocumentsIndex (a batch's documents of one tenant in one transaction, as an
// ingest batch) and storeEmbeddings, so the lexical statistics, tsvectors and pgvector rows are
// written exactly as ingest writes them; their stored vectors are reused.
import type { NewChunk } from "../content-types.js";
import type { ContentStore, DocumentIndex } from "../content-store.js";
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

/** A document's row in the target, as its chunks' write needs it (and puts back after it). */
interface TargetDocument {
  id: string;
  title: string;
  metadata: Record<string, unknown>;
  status: string;
  updated_at: string;
}

/** The target's rows of one tenant's documents, in one statement (one shard on Citus). */
async function documentRows(pool: Pool, tenantId: string, ids: string[]): Promise<Map<string, TargetDocument>> {
  const r = await pool.query<{ id: string; title: string; metadata: unknown; status: string; updated_at: string }>(
    "SELECT id, title, metadata, status, updated_at FROM documents WHERE tenant_id = $1 AND id = ANY($2::text[])",
    [tenantId, ids],
  );
  const meta = (m: unknown) => (typeof m === "string" ? JSON.parse(m) : m) as Record<string, unknown>;
  return new Map(r.rows.map((d) => [d.id, { ...d, metadata: meta(d.metadata) }]));
}

const newChunksOf = (chunks: TransferChunk[]): NewChunk[] =>
  chunks.map((c) => ({ position: c.position, text: c.text, heading_path: c.heading_path, token_count: c.token_count, metadata: c.metadata }));

/** the one index every chunk of the document is embedded in; null when none is, undefined when mixed */
function soleIndex(chunks: TransferChunk[]): string | null | undefined {
  const indexes = new Set(chunks.map((c) => (c.vector ? c.embedded_in : null)));
  if (indexes.size !== 1) return undefined;
  return chunks[0].vector ? chunks[0].embedded_in : null;
}

/**
 * A document whose chunks are embedded in several indexes, or only some of them: its chunks, then
 * each index's vectors by the target's chunk ids (rare: a model change half-way through a backfill).
 */
async function writeMixedDocument(content: ContentStore, tenantId: string, doc: TargetDocument, chunks: TransferChunk[]): Promise<void> {
  await content.replaceDocumentIndex(tenantId, doc.id, { title: doc.title, metadata: doc.metadata }, newChunksOf(chunks), null);
  const { chunks: stored } = await content.listChunks(tenantId, doc.id, chunks.length + 1);
  const idAt = new Map(stored.map((s) => [s.position, s.id]));
  for (const name of new Set(chunks.map((c) => c.embedded_in))) {
    if (!name) continue;
    const items = chunks.filter((c) => c.embedded_in === name && c.vector).map((c) => ({ chunkId: idAt.get(c.position)!, vector: c.vector! }));
    if (items.length) await content.storeEmbeddings(name, items);
  }
}

/**
 * Writes one tenant's documents' chunks through the content store with their stored vectors: all
 * of them in one replaceDocumentsIndex (one transaction, one round of statements and lexical
 * statistics triggers, as an ingest batch writes), then puts back each document's status and
 * updated_at (indexing sets them to indexed and now) in one statement.
 */
async function writeTenantChunks(pool: Pool, content: ContentStore, tenantId: string, docs: TransferChunk[][], ensureIndex: (name: string, dim: number) => Promise<void>): Promise<void> {
  const rows = await documentRows(pool, tenantId, docs.map((d) => d[0].document_id));
  const batched: DocumentIndex[] = [];
  const mixed: [TargetDocument, TransferChunk[]][] = [];
  for (const chunks of docs) {
    const doc = rows.get(chunks[0].document_id);
    if (!doc) throw new Error(`chunks of document ${chunks[0].document_id} (tenant ${tenantId}) whose document row is not in the target`);
    for (const c of chunks) if (c.embedded_in && c.vector) await ensureIndex(c.embedded_in, c.vector.length);
    const index = soleIndex(chunks);
    if (index === undefined) mixed.push([doc, chunks]);
    else batched.push({ documentId: doc.id, doc: { title: doc.title, metadata: doc.metadata }, chunks: newChunksOf(chunks), vectors: index ? { indexName: index, values: chunks.map((c) => c.vector!) } : null });
  }
  await content.replaceDocumentsIndex(tenantId, batched);
  for (const [doc, chunks] of mixed) await writeMixedDocument(content, tenantId, doc, chunks);
  const written = [...rows.values()];
  await pool.query(
    `UPDATE documents d SET status = x.status, updated_at = x.updated_at
     FROM unnest($2::text[], $3::text[], $4::text[]) AS x(id, status, updated_at) WHERE d.tenant_id = $1 AND d.id = x.id`,
    [tenantId, written.map((d) => d.id), written.map((d) => d.status), written.map((d) => d.updated_at)],
  );
}

/** A batch's documents (each its chunks) by tenant, in order of first appearance. */
function byTenant(docs: TransferChunk[][]): Map<string, TransferChunk[][]> {
  const out = new Map<string, TransferChunk[][]>();
  for (const d of docs) out.set(d[0].tenant_id, [...(out.get(d[0].tenant_id) ?? []), d]);
  return out;
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
        for (const [tenantId, docs] of byTenant(byDocument(rows as unknown as TransferChunk[]))) await writeTenantChunks(pool, content, tenantId, docs, ensureIndex);
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
