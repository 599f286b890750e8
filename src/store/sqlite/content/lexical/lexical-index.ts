// The embedded store's lexical search: per-tenant in-memory BM25 indexes (bm25-index.ts) kept
// exactly in step with the chunk_terms table of the same SQLite file.
//
// - Writes: replacing a document's chunks inserts one chunk_terms row per chunk in the chunk's own
//   transaction; deletes reach chunk_terms by cascade from chunks. Triggers append every change to
//   lexical_log (migration 006), so the log is in commit order and rolled-back writes leave nothing.
// - Reads: before each query the process applies the log rows after its cursor to the tenants it
//   holds (a few microseconds when nothing changed); a tenant is loaded from chunk_terms on its
//   first query, in one read transaction that also fixes the log position it starts from. Other
//   processes writing the same file are seen the same way.
// - Phrases (quoted text, split identifiers) are verified on the best candidates by re-reading
//   their text, so the index holds no positions.
import type { DB } from "../../db.js";
import type { LexicalWeights, ParsedQuery, Scored } from "../../../content-types.js";
import { analyzeChunk, headingsField, type ChunkFields, type ChunkTerms } from "./analyze.js";
import { Bm25Index } from "./bm25-index.js";
import { rankLexical } from "./rank.js";
import { parseJson } from "../json.js";

interface TenantIndex {
  index: Bm25Index;
  /** log position this tenant's state includes */
  seq: number;
  sources: Map<string, number>;
}

interface TermsRow {
  length: number;
  terms: string;
  tfs: Buffer;
}

const splitTerms = (s: string | null): string[] => (s ? s.split(" ") : []);

function decode(r: TermsRow): ChunkTerms {
  // copy: a Buffer's offset need not be 2-byte aligned
  const tfs = new Uint16Array(new Uint8Array(r.tfs).buffer);
  return { terms: splitTerms(r.terms), tfs, length: r.length };
}

/** Writes the analysed terms of a new chunk; call inside the transaction that inserts the chunk. */
export function chunkTermsWriter(db: DB): (chunkId: number, tenantId: string, sourceId: string, fields: ChunkFields) => void {
  const ins = db.prepare("INSERT INTO chunk_terms (chunk_id, tenant_id, data_source_id, length, terms, tfs) VALUES (?, ?, ?, ?, ?, ?)");
  return (chunkId, tenantId, sourceId, fields) => {
    const a = analyzeChunk(fields);
    ins.run(chunkId, tenantId, sourceId, a.length, a.terms.join(" "), Buffer.from(a.tfs.buffer, a.tfs.byteOffset, a.tfs.byteLength));
  };
}

/** Gives chunks written before migration 006 their chunk_terms rows (once per database). */
export function backfillChunkTerms(db: DB): void {
  if (db.prepare("SELECT 1 FROM lexical_meta WHERE key = 'backfilled'").get()) return;
  const write = chunkTermsWriter(db);
  const missing = db.prepare(
    `SELECT c.id, c.tenant_id, c.data_source_id, c.heading_path, c.text, d.title FROM chunks c
     JOIN documents d ON d.id = c.document_id LEFT JOIN chunk_terms t ON t.chunk_id = c.id
     WHERE t.chunk_id IS NULL LIMIT 2000`,
  );
  type Row = { id: number; tenant_id: string; data_source_id: string; heading_path: string; text: string; title: string };
  const batch = db.transaction(() => {
    const rows = missing.all() as Row[];
    for (const r of rows) write(r.id, r.tenant_id, r.data_source_id, { title: r.title, headings: headingsField(parseJson<string[]>(r.heading_path, [])), body: r.text });
    return rows.length;
  });
  while (batch() > 0);
  db.prepare("INSERT OR REPLACE INTO lexical_meta (key, value) VALUES ('backfilled', 1)").run();
}

export function createLexicalIndexes(db: DB) {
  const tenants = new Map<string, TenantIndex>();
  const maxSeq = db.prepare("SELECT COALESCE(max(seq), 0) AS s FROM lexical_log");
  const floorOf = db.prepare("SELECT value FROM lexical_meta WHERE key = 'floor'");
  // positions first; terms only for the tenants this process holds
  const logSince = db.prepare("SELECT seq, tenant_id, chunk_id, op FROM lexical_log WHERE seq > ? ORDER BY seq");
  const addedRow = db.prepare("SELECT data_source_id, length, terms, tfs FROM chunk_terms WHERE chunk_id = ?");
  const removedTerms = db.prepare("SELECT terms FROM lexical_log WHERE seq = ?").pluck();
  const tenantRows = db.prepare("SELECT chunk_id, data_source_id, length, terms, tfs FROM chunk_terms WHERE tenant_id = ? ORDER BY chunk_id");
  const texts = db.prepare(
    `SELECT c.id, c.text, c.heading_path, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
     WHERE c.id IN (SELECT value FROM json_each(?))`,
  );
  let cursor = (maxSeq.get() as { s: number }).s;
  const fieldsOf = (keys: number[]): Map<number, ChunkFields> => {
    type Row = { id: number; text: string; heading_path: string; title: string };
    const rows = texts.all(JSON.stringify(keys)) as Row[];
    return new Map(rows.map((r) => [r.id, { title: r.title, headings: headingsField(parseJson<string[]>(r.heading_path, [])), body: r.text }]));
  };

  const sourceOrdinal = (t: TenantIndex, sourceId: string): number => {
    let o = t.sources.get(sourceId);
    if (o === undefined) t.sources.set(sourceId, (o = t.sources.size));
    return o;
  };

  // one read transaction: the log rows and the terms they point at come from one snapshot
  const catchUp = db.transaction((): void => {
    const floor = (floorOf.get() as { value: number } | undefined)?.value ?? 0;
    if (floor > cursor) {
      // the log was pruned past this process: reload tenants lazily from their rows
      tenants.clear();
      cursor = (maxSeq.get() as { s: number }).s;
      return;
    }
    type LogRow = { seq: number; tenant_id: string; chunk_id: number; op: number };
    const rows = logSince.all(cursor) as LogRow[];
    for (const r of rows) {
      cursor = r.seq;
      const t = tenants.get(r.tenant_id);
      if (!t || r.seq <= t.seq) continue;
      if (r.op === 1) {
        // an added chunk already deleted again has no row: its later removal is ignored as well
        const a = addedRow.get(r.chunk_id) as (TermsRow & { data_source_id: string }) | undefined;
        if (a) t.index.add(r.chunk_id, sourceOrdinal(t, a.data_source_id), decode(a));
      } else {
        t.index.remove(r.chunk_id, splitTerms(removedTerms.get(r.seq) as string | null));
        // an emptied tenant (deleted, or all its content removed) gives its memory back
        if (t.index.docCount === 0) tenants.delete(r.tenant_id);
      }
    }
  });

  const load = db.transaction((tenantId: string): TenantIndex => {
    const t: TenantIndex = { index: new Bm25Index(), seq: (maxSeq.get() as { s: number }).s, sources: new Map() };
    type Row = TermsRow & { chunk_id: number; data_source_id: string };
    const rows = tenantRows.iterate(tenantId) as IterableIterator<Row>;
    t.index.bulkAdd(
      (function* () {
        for (const r of rows) yield { key: r.chunk_id, source: sourceOrdinal(t, r.data_source_id), chunk: decode(r) };
      })(),
    );
    return t;
  });

  function tenant(tenantId: string): TenantIndex {
    catchUp();
    let t = tenants.get(tenantId);
    if (!t) tenants.set(tenantId, (t = load(tenantId)));
    return t;
  }

  return {
    /** BM25 top `limit` of the tenant's chunks in these sources; ids are chunk rowids as strings. */
    search(tenantId: string, sourceIds: string[], query: ParsedQuery, limit: number, w: LexicalWeights): Scored[] {
      if (sourceIds.length === 0 || limit <= 0) return [];
      const t = tenant(tenantId);
      const allowed = new Uint8Array(t.sources.size);
      for (const s of sourceIds) {
        const o = t.sources.get(s);
        if (o !== undefined) allowed[o] = 1;
      }
      return rankLexical(t.index, allowed, query, limit, w, fieldsOf).map((h) => ({ chunkId: String(h.key), score: h.score }));
    },
    /** drops in-memory state (tests, memory pressure); the next query reloads from chunk_terms */
    evict(tenantId?: string): void {
      if (tenantId === undefined) tenants.clear();
      else tenants.delete(tenantId);
    },
    memoryBytes(): number {
      let n = 0;
      for (const t of tenants.values()) n += t.index.memoryBytes();
      return n;
    },
  };
}

export type LexicalIndexes = ReturnType<typeof createLexicalIndexes>;
