// The embedded store's lexical search: per-tenant in-memory BM25 indexes (search/lexical/bm25-index.ts) kept
// exactly in step with the chunk_terms table of the same SQLite file.
//
// - Writes: replacing a document's chunks inserts one chunk_terms row per chunk in the chunk's own
//   transaction; deletes reach chunk_terms by cascade from chunks. Triggers append every change to
//   lexical_log (migration 006), so the log is in commit order and rolled-back writes leave nothing.
// - Reads: before each query the process applies the log rows after its cursor to the tenants it
//   holds (a few microseconds when nothing changed); a tenant is loaded from chunk_terms on its
//   first query, in one read transaction that also fixes the log position it starts from. Other
//   processes writing the same file are seen the same way.
// - Warm-up: after start, warm() loads every tenant in the background in pages with pauses between
//   them, so the first query of a tenant after a restart does not pay the load (~1 s for 20,000
//   chunks) and no page stalls the event loop for long.
// - Phrases (quoted text, split identifiers) are verified on the best candidates by re-reading
//   their text, so the index holds no positions.
import type { DB } from "../db.js";
import type { Scored } from "../../content-types.js";
import type { LexicalQuery, LexicalWeights, TermAnswer, TermLookup } from "../../../search/lexical/types.js";
import { answerLookup } from "../../../search/lexical/term-dictionary.js";
import { analyzeChunk, headingsField, DEFAULT_ANALYZER, type Analyzer, type ChunkFields, type ChunkTerms } from "../../../search/lexical/analyze.js";
import { Bm25Index } from "../../../search/lexical/bm25-index.js";
import { rankLexical, scoredHits } from "../../../search/lexical/rank.js";
import { allowedSources, sourceOrdinal } from "../../../search/lexical/source-ordinals.js";
import { analyzerOfTerms } from "../../../search/lexical/languages.js";
import { parseJson } from "./json.js";

/** a search filter's chunks (filter-scope.ts): only `has` is asked */
export type ChunkAccept = { has(key: number): boolean };

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

/** what chunk_terms are cut with unless the document's language says otherwise (languages.ts) */
const ANALYZER = DEFAULT_ANALYZER;

const splitTerms = (s: string | null): string[] => (s ? s.split(" ") : []);

function decode(r: TermsRow): ChunkTerms {
  // copy: a Buffer's offset need not be 2-byte aligned
  const tfs = new Uint16Array(new Uint8Array(r.tfs).buffer);
  return { terms: splitTerms(r.terms), tfs, length: r.length };
}

/** Writes the analysed terms of a new chunk; call inside the transaction that inserts the chunk. */
export function chunkTermsWriter(db: DB): (chunkId: number, tenantId: string, sourceId: string, fields: ChunkFields, analyzer?: Analyzer) => void {
  const ins = db.prepare("INSERT INTO chunk_terms (chunk_id, tenant_id, data_source_id, length, terms, tfs) VALUES (?, ?, ?, ?, ?, ?)");
  return (chunkId, tenantId, sourceId, fields, analyzer = ANALYZER) => {
    const a = analyzeChunk(fields, analyzer);
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

type LogRow = { seq: number; tenant_id: string; chunk_id: number; op: number };

/** rows read per step of a background load (~20-40 ms of work) */
const WARM_PAGE = 2_000;

function lexicalStatements(db: DB) {
  return {
    maxSeq: db.prepare("SELECT COALESCE(max(seq), 0) AS s FROM lexical_log").pluck(),
    floor: db.prepare("SELECT value FROM lexical_meta WHERE key = 'floor'").pluck(),
    // positions first; terms only for the tenants this process holds
    logSince: db.prepare("SELECT seq, tenant_id, chunk_id, op FROM lexical_log WHERE seq > ? ORDER BY seq"),
    tenantLog: db.prepare("SELECT seq, tenant_id, chunk_id, op FROM lexical_log WHERE tenant_id = ? AND seq > ? AND seq <= ? ORDER BY seq"),
    addedRow: db.prepare("SELECT data_source_id, length, terms, tfs FROM chunk_terms WHERE chunk_id = ?"),
    removedTerms: db.prepare("SELECT terms FROM lexical_log WHERE seq = ?").pluck(),
    tenantRows: db.prepare("SELECT chunk_id, data_source_id, length, terms, tfs FROM chunk_terms WHERE tenant_id = ? ORDER BY chunk_id"),
    tenantPage: db.prepare("SELECT chunk_id, data_source_id, length, terms, tfs FROM chunk_terms WHERE tenant_id = ? AND chunk_id > ? ORDER BY chunk_id LIMIT ?"),
    tenantIds: db.prepare("SELECT DISTINCT tenant_id FROM chunk_terms").pluck(),
    texts: db.prepare(
      `SELECT c.id, c.text, c.heading_path, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE c.id IN (SELECT value FROM json_each(?))`,
    ),
  };
}

type Statements = ReturnType<typeof lexicalStatements>;
type TermsRowOf = TermsRow & { chunk_id: number; data_source_id: string };

/** A chunk_terms row as the tenant's index takes it. */
const entryOf = (t: TenantIndex, r: TermsRowOf) => ({ key: r.chunk_id, source: sourceOrdinal(t.sources, r.data_source_id), chunk: decode(r) });

/** A new tenant index holding these rows, as of log position `seq`. */
function tenantIndexOf(rows: Iterable<TermsRowOf>, seq: number): TenantIndex {
  const t: TenantIndex = { index: new Bm25Index(), seq, sources: new Map() };
  t.index.bulkAdd(
    (function* () {
      for (const r of rows) yield entryOf(t, r);
    })(),
  );
  return t;
}

/** the wait between pages of a background load: unref'd, so it never keeps a process alive */
const pause = () => new Promise<void>((res) => setTimeout(res, 1).unref());

export interface WarmOptions {
  /** rows per page (default WARM_PAGE) */
  page?: number;
  /** awaited between pages (default: a 1 ms timer); tests write between pages through it */
  pause?: () => Promise<void>;
}

export class LexicalIndexes {
  private readonly tenants = new Map<string, TenantIndex>();
  private readonly q: Statements;
  private cursor: number;
  private warming: Promise<number> | null = null;
  /** applies the log after the cursor to the tenants held (one read transaction) */
  private readonly catchUp: () => void;
  /** reads a tenant whole (one read transaction) */
  private readonly load: (tenantId: string) => TenantIndex;

  constructor(
    private readonly db: DB,
    private readonly warmOptions: WarmOptions = {},
  ) {
    this.q = lexicalStatements(db);
    this.cursor = this.q.maxSeq.get() as number;
    this.catchUp = db.transaction(() => this.applyLog());
    this.load = db.transaction((tenantId: string) =>
      tenantIndexOf(this.q.tenantRows.iterate(tenantId) as IterableIterator<TermsRowOf>, this.q.maxSeq.get() as number),
    );
  }

  /**
   * BM25 top `limit` of the tenant's chunks in these sources (and among `accept`, a filter's
   * chunks, when given); ids are chunk rowids as strings.
   */
  search(tenantId: string, sourceIds: string[], query: LexicalQuery, limit: number, w: LexicalWeights, accept?: ChunkAccept): Scored[] {
    if (sourceIds.length === 0 || limit <= 0) return [];
    const t = this.tenant(tenantId);
    const allowed = allowedSources(t.sources, sourceIds);
    const filter = accept && ((key: number) => accept.has(key));
    return scoredHits(rankLexical(t.index, allowed, query, limit, w, (keys) => this.fieldsOf(keys), analyzerOfTerms(query.phrases), filter), query);
  }

  /** The tenant's term dictionary (typo tolerance, prefix search). */
  terms(tenantId: string, lookup: TermLookup): TermAnswer {
    return answerLookup(this.tenant(tenantId).index, lookup);
  }

  /** Rowids of every chunk of the tenant in these sources (and `accept`) matching any query term. */
  matching(tenantId: string, sourceIds: string[], query: LexicalQuery, accept?: ChunkAccept): number[] {
    if (sourceIds.length === 0 || query.terms.length === 0) return [];
    const t = this.tenant(tenantId);
    return t.index.matchingKeys(query.terms, allowedSources(t.sources, sourceIds), accept && ((key: number) => accept.has(key)));
  }

  /** drops in-memory state (tests, memory pressure); the next query reloads from chunk_terms */
  evict(tenantId?: string): void {
    if (tenantId === undefined) this.tenants.clear();
    else this.tenants.delete(tenantId);
  }

  memoryBytes(): number {
    let n = 0;
    for (const t of this.tenants.values()) n += t.index.memoryBytes();
    return n;
  }

  /** tenants held in memory */
  get loaded(): number {
    return this.tenants.size;
  }

  /**
   * Loads every tenant not held yet, in the background; resolves with how many it loaded. Stops
   * when the database closes. A query for a tenant not loaded yet loads it at once, as without
   * warm-up.
   */
  warm(): Promise<number> {
    this.warming ??= this.warmAll().finally(() => (this.warming = null));
    return this.warming;
  }

  private async warmAll(): Promise<number> {
    let n = 0;
    for (const tenantId of this.q.tenantIds.all() as string[]) {
      if (!this.db.open) break;
      if (!this.tenants.has(tenantId) && (await this.loadInPages(tenantId))) n++;
    }
    return n;
  }

  /**
   * Reads a tenant's rows a page at a time with pauses between pages, then replays the log from
   * the position the first page was read at. Adds of chunks a page already held and removals of
   * chunks it never saw are no-ops (Bm25Index), so writes between pages leave it exact.
   */
  private async loadInPages(tenantId: string): Promise<boolean> {
    const { page: size = WARM_PAGE, pause: wait = pause } = this.warmOptions;
    const seq = this.q.maxSeq.get() as number;
    const t: TenantIndex = { index: new Bm25Index(), seq, sources: new Map() };
    // each page becomes postings at once and its rows are dropped: a 1,000,000-chunk tenant
    // never holds all its raw rows (their strings) beside the index being built
    t.index.startLoad();
    for (let after = 0; ; ) {
      if (!this.db.open || this.tenants.has(tenantId)) return false; // closed, or a query loaded it
      const page = this.q.tenantPage.all(tenantId, after, size) as TermsRowOf[];
      t.index.loadMore(page.map((r) => entryOf(t, r)));
      if (page.length < size) break;
      after = page[page.length - 1]!.chunk_id;
      await wait();
    }
    if (!this.db.open || this.tenants.has(tenantId)) return false;
    this.catchUp();
    // the log was pruned past the first page's position: the lazy load will read the tenant whole
    if (((this.q.floor.get() as number | undefined) ?? 0) > seq) return false;
    t.index.finishLoad();
    // what the log says happened to this tenant while its pages were read (catchUp skipped it)
    for (const r of this.q.tenantLog.all(tenantId, seq, this.cursor) as LogRow[]) this.apply(t, r);
    t.seq = this.cursor;
    if (t.index.docCount > 0) this.tenants.set(tenantId, t);
    return true;
  }

  private tenant(tenantId: string): TenantIndex {
    this.catchUp();
    let t = this.tenants.get(tenantId);
    if (!t) this.tenants.set(tenantId, (t = this.load(tenantId)));
    return t;
  }

  private fieldsOf(keys: number[]): Map<number, ChunkFields> {
    type Row = { id: number; text: string; heading_path: string; title: string };
    const rows = this.q.texts.all(JSON.stringify(keys)) as Row[];
    return new Map(rows.map((r) => [r.id, { title: r.title, headings: headingsField(parseJson<string[]>(r.heading_path, [])), body: r.text }]));
  }

  /** One logged change applied to a tenant's index. */
  private apply(t: TenantIndex, r: LogRow): void {
    if (r.op === 1) {
      // an added chunk already deleted again has no row: its later removal is ignored as well
      const a = this.q.addedRow.get(r.chunk_id) as (TermsRow & { data_source_id: string }) | undefined;
      if (a) t.index.add(r.chunk_id, sourceOrdinal(t.sources, a.data_source_id), decode(a));
    } else {
      t.index.remove(r.chunk_id, splitTerms(this.q.removedTerms.get(r.seq) as string | null));
    }
  }

  // in one read transaction (catchUp): the log rows and the terms they point at come from one snapshot
  private applyLog(): void {
    const floor = (this.q.floor.get() as number | undefined) ?? 0;
    if (floor > this.cursor) {
      // the log was pruned past this process: reload tenants lazily from their rows
      this.tenants.clear();
      this.cursor = this.q.maxSeq.get() as number;
      return;
    }
    for (const r of this.q.logSince.all(this.cursor) as LogRow[]) {
      this.cursor = r.seq;
      const t = this.tenants.get(r.tenant_id);
      if (!t || r.seq <= t.seq) continue;
      this.apply(t, r);
      // an emptied tenant (deleted, or all its content removed) gives its memory back
      if (r.op !== 1 && t.index.docCount === 0) this.tenants.delete(r.tenant_id);
    }
  }
}
