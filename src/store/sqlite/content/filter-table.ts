// The filterable side of a tenant's documents in memory (docs/decisions.md, "Filters in memory"):
// per document an ordinal, its data source and the range of its chunk ids, a map from chunk id to
// document, and typed columns (search/filter/columns.ts) of the fields filters and facets name,
// each built on first use. A filter is then evaluated once over the documents in memory (a byte
// each) instead of json_extract over every document's metadata per retriever.
//
// Kept exactly current like the BM25 indexes (lexical-index.ts): triggers append every change of a
// document row to document_log (migration 032), and before each use the process re-reads, in one
// read transaction, the rows of the documents changed since its cursor (their chunks change only
// together with their row). Other processes' writes are seen the same way.
import type { DB } from "../db.js";
import type { FilterField, SearchFilter } from "../../../search/filter/types.js";
import { ValueColumn, grown, metadataValue } from "../../../search/filter/columns.js";
import { evaluateFilter, type FilterColumns } from "../../../search/filter/evaluate.js";
import { parseJson } from "./json.js";

type DocRow = { id: string; data_source_id: string; kind: string | null; created_at: string; updated_at: string; metadata: string };

/** the field as its column's key */
const fieldKey = (f: FilterField): string => (f.kind === "column" ? f.name : `metadata\u0000${f.path.join("\u0000")}`);

/** a document field's value as the filter rules read it (postgres/content/filter-sql.ts COLUMN in SQL) */
function valueOf(field: FilterField, row: DocRow, metadata: () => unknown): unknown {
  if (field.kind === "metadata") return metadataValue(metadata(), field.path);
  switch (field.name) {
    case "data_source_id":
      return row.data_source_id;
    case "document_id":
      return row.id;
    case "created_at":
      return row.created_at;
    case "updated_at":
      return row.updated_at;
    case "file_type": {
      const own = metadataValue(metadata(), ["file_type"]);
      return typeof own === "string" ? own : (row.kind ?? undefined);
    }
  }
}

function statements(db: DB) {
  return {
    maxSeq: db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'document_log'), 0)").pluck(),
    floor: db.prepare("SELECT value FROM document_log_meta WHERE key = 'floor'").pluck(),
    logSince: db.prepare("SELECT tenant_id, document_id FROM document_log WHERE seq > ? AND seq <= ? ORDER BY seq"),
    documents: db.prepare("SELECT id, data_source_id FROM documents WHERE tenant_id = ?"),
    chunks: db.prepare("SELECT id, document_id FROM chunks WHERE tenant_id = ? ORDER BY id"),
    rows: db.prepare("SELECT id, data_source_id, kind, created_at, updated_at, metadata FROM documents WHERE tenant_id = ?"),
    row: db.prepare("SELECT id, data_source_id, kind, created_at, updated_at, metadata FROM documents WHERE tenant_id = ? AND id = ?"),
    chunksOf: db.prepare("SELECT id FROM chunks WHERE document_id = ? ORDER BY id").pluck(),
  };
}
type Statements = ReturnType<typeof statements>;

/** One tenant's documents in memory. */
export class TenantTable implements FilterColumns {
  size = 0;
  live = 0;
  /** bumped by every applied change: evaluated filters are cached per version */
  version = 0;
  readonly ids: string[] = [];
  private readonly byId = new Map<string, number>();
  alive = new Uint8Array(0);
  /** per document its data source, as a code into `sources` */
  sourceOf = new Int32Array(0);
  readonly sources = new Map<string, number>();
  /** per document its chunk ids: first and count when consecutive (the usual case), else in `scattered` */
  private chunkFirst = new Float64Array(0);
  chunkCount = new Int32Array(0);
  private readonly scattered = new Map<number, number[]>();
  readonly documentOf = new Map<number, number>();
  private readonly columns = new Map<string, ValueColumn>();
  private readonly cache = new Map<string, Uint8Array>();
  private cacheVersion = -1;

  constructor(
    private readonly q: Statements,
    readonly tenantId: string,
  ) {}

  ordinal(id: string): number | undefined {
    return this.byId.get(id);
  }

  /** the ordinal of a document, added when new */
  private place(id: string, sourceId: string): number {
    let d = this.byId.get(id);
    if (d === undefined) {
      d = this.size++;
      this.byId.set(id, d);
      this.ids[d] = id;
      this.alive = grown(this.alive, this.size);
      this.sourceOf = grown(this.sourceOf, this.size);
      this.chunkFirst = grown(this.chunkFirst, this.size);
      this.chunkCount = grown(this.chunkCount, this.size);
      this.alive[d] = 1;
      this.live++;
    }
    let s = this.sources.get(sourceId);
    if (s === undefined) this.sources.set(sourceId, (s = this.sources.size));
    this.sourceOf[d] = s;
    return d;
  }

  private addChunk(d: number, chunkId: number): void {
    this.documentOf.set(chunkId, d);
    const n = this.chunkCount[d]!;
    const list = this.scattered.get(d);
    if (list) list.push(chunkId);
    else if (n === 0) this.chunkFirst[d] = chunkId;
    else if (this.chunkFirst[d]! + n !== chunkId) {
      const ids = Array.from({ length: n }, (_, i) => this.chunkFirst[d]! + i);
      ids.push(chunkId);
      this.scattered.set(d, ids);
    }
    this.chunkCount[d] = n + 1;
  }

  /** the chunk ids of a document */
  chunksOf(d: number): number[] {
    const list = this.scattered.get(d);
    if (list) return list;
    return Array.from({ length: this.chunkCount[d]! }, (_, i) => this.chunkFirst[d]! + i);
  }

  private dropChunks(d: number): void {
    for (const c of this.chunksOf(d)) this.documentOf.delete(c);
    this.scattered.delete(d);
    this.chunkCount[d] = 0;
  }

  /** Reads the tenant whole (call inside a read transaction). */
  load(): void {
    for (const r of this.q.documents.iterate(this.tenantId) as IterableIterator<{ id: string; data_source_id: string }>) this.place(r.id, r.data_source_id);
    for (const r of this.q.chunks.iterate(this.tenantId) as IterableIterator<{ id: number; document_id: string }>) {
      const d = this.byId.get(r.document_id);
      if (d !== undefined) this.addChunk(d, r.id);
    }
  }

  /** Re-reads one document as it is now: its row, chunks and every column held (inside a read transaction). */
  refresh(id: string): void {
    this.version++;
    const row = this.q.row.get(this.tenantId, id) as DocRow | undefined;
    let d = this.byId.get(id);
    if (!row) {
      if (d === undefined) return;
      this.dropChunks(d);
      this.alive[d] = 0;
      this.byId.delete(id);
      this.live--;
      for (const col of this.columns.values()) col.set(d, undefined);
      return;
    }
    d = this.place(id, row.data_source_id);
    this.dropChunks(d);
    for (const c of this.q.chunksOf.all(id) as number[]) this.addChunk(d, c);
    let parsed: unknown;
    const metadata = () => (parsed ??= parseJson(row.metadata, {}));
    for (const [key, col] of this.columns) col.set(d, valueOf(this.fieldOf.get(key)!, row, metadata));
  }

  private readonly fieldOf = new Map<string, FilterField>();

  /** Builds the columns of these fields not held yet, in one read of the tenant's rows (inside a read transaction). */
  prepare(fields: FilterField[]): void {
    const missing = fields.filter((f) => !this.columns.has(fieldKey(f)));
    if (missing.length === 0) return;
    const cols = missing.map(() => new ValueColumn());
    for (const r of this.q.rows.iterate(this.tenantId) as IterableIterator<DocRow>) {
      const d = this.byId.get(r.id);
      if (d === undefined) continue;
      let parsed: unknown;
      const metadata = () => (parsed ??= parseJson(r.metadata, {}));
      missing.forEach((f, i) => cols[i]!.set(d, valueOf(f, r, metadata)));
    }
    missing.forEach((f, i) => {
      this.columns.set(fieldKey(f), cols[i]!);
      this.fieldOf.set(fieldKey(f), f);
    });
  }

  column(field: FilterField): ValueColumn {
    const col = this.columns.get(fieldKey(field));
    if (!col) throw new Error(`filter column ${fieldKey(field)} was not prepared`);
    return col;
  }

  /** Per document ordinal, whether it passes (live documents only); the same filter is evaluated once per version. */
  passing(filter: SearchFilter, key: string): Uint8Array {
    if (this.cacheVersion !== this.version) {
      this.cache.clear();
      this.cacheVersion = this.version;
    }
    let pass = this.cache.get(key);
    if (!pass) {
      pass = evaluateFilter(filter, this);
      for (let d = 0; d < this.size; d++) pass[d] = pass[d]! & this.alive[d]!;
      if (this.cache.size >= 8) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, pass);
    }
    return pass;
  }

  memoryBytes(): number {
    let n = this.alive.byteLength + this.sourceOf.byteLength + this.chunkFirst.byteLength + this.chunkCount.byteLength;
    n += this.documentOf.size * 40 + this.byId.size * 40 + this.ids.length * 8;
    for (const id of this.ids) n += id ? 2 * id.length + 24 : 0;
    for (const c of this.columns.values()) n += c.memoryBytes();
    for (const p of this.cache.values()) n += p.byteLength;
    return n;
  }

  /** documents that left but still hold an ordinal: past this, the table is read anew */
  get wasted(): number {
    return this.size - this.live;
  }
}

/** the fields a filter names */
export function fieldsOf(f: SearchFilter, out: FilterField[] = []): FilterField[] {
  switch (f.op) {
    case "and":
    case "or":
      for (const n of f.nodes) fieldsOf(n, out);
      break;
    case "not":
      fieldsOf(f.node, out);
      break;
    case "exists":
      if (f.field.kind === "column") break; // a document field always exists: no column needed
      out.push(f.field);
      break;
    default:
      out.push(f.field);
  }
  return out;
}

/** a catch-up that re-reads more documents than this reads the tenant anew instead */
const REFRESH_MAX = 20_000;

/** The tenants' tables of one database, loaded on first use and kept current from document_log. */
export class FilterTables {
  private readonly tenants = new Map<string, TenantTable>();
  private readonly q: Statements;
  private cursor: number;
  /** catches up, loads the tenant if needed and builds the columns asked for, in one read transaction */
  private readonly open: (tenantId: string, fields: FilterField[]) => TenantTable;

  constructor(db: DB) {
    this.q = statements(db);
    this.cursor = this.q.maxSeq.get() as number;
    this.open = db.transaction((tenantId: string, fields: FilterField[]) => {
      this.catchUp();
      let t = this.tenants.get(tenantId);
      if (!t) {
        t = new TenantTable(this.q, tenantId);
        t.load();
        this.tenants.set(tenantId, t);
      }
      t.prepare(fields);
      return t;
    });
  }

  /** The tenant's table, current, with columns for these fields. */
  table(tenantId: string, fields: FilterField[]): TenantTable {
    return this.open(tenantId, fields);
  }

  private catchUp(): void {
    const to = this.q.maxSeq.get() as number;
    if (to === this.cursor) return;
    const floor = (this.q.floor.get() as number | undefined) ?? 0;
    if (floor > this.cursor) {
      // the log was pruned past this process: read the tenants anew when next used
      this.tenants.clear();
      this.cursor = to;
      return;
    }
    const changed = new Map<string, Set<string>>();
    for (const r of this.q.logSince.iterate(this.cursor, to) as IterableIterator<{ tenant_id: string; document_id: string }>) {
      if (!this.tenants.has(r.tenant_id)) continue;
      let s = changed.get(r.tenant_id);
      if (!s) changed.set(r.tenant_id, (s = new Set()));
      s.add(r.document_id);
    }
    this.cursor = to;
    for (const [tenantId, ids] of changed) {
      const t = this.tenants.get(tenantId)!;
      if (ids.size > REFRESH_MAX) {
        this.tenants.delete(tenantId);
        continue;
      }
      for (const id of ids) t.refresh(id);
      // a tenant emptied gives its memory back; one with many departed documents is read anew
      if (t.live === 0 || t.wasted > Math.max(10_000, t.live)) this.tenants.delete(tenantId);
    }
  }

  /** drops in-memory state (tests, memory pressure); the next use reads the tenant anew */
  evict(tenantId?: string): void {
    if (tenantId === undefined) this.tenants.clear();
    else this.tenants.delete(tenantId);
  }

  memoryBytes(): number {
    let n = 0;
    for (const t of this.tenants.values()) n += t.memoryBytes();
    return n;
  }
}
