// Per-process BM25 indexes of PostgreSQL tenants whose content is not changing: the lexical core's
// in-memory index (search/lexical/bm25-index.ts, the one the embedded store keeps) built from the
// tenant's chunk rows, used only while the tenant's lexical generation is the one it was built at.
//
// - Validity: the statement triggers that keep a tenant's BM25 statistics (migration 110) give its
//   lexical_stats row a new random generation in every transaction that adds or removes chunks
//   (migration 140). A search reads the generation (one primary-key probe) and uses the index only
//   when it matches, so an answer is always that of a committed state, as the SQL statement's is.
// - Loading: in the background, never on a search's path (the search takes the SQL statement
//   meanwhile), once the tenant's generation has stayed the same for `settleMs`: a tenant being
//   ingested is not reloaded after every batch. A tenant is read in one REPEATABLE READ snapshot
//   together with its generation, a page of rows at a time.
// - Memory: tenants up to `maxChunks` chunks in all; the least recently searched go first.
// Why: the lexical statement costs 9-15 ms of PostgreSQL CPU per SciFact query, the in-memory
// index well under one (docs/decisions.md, "PostgreSQL lexical cache").
import type { Pool } from "../db.js";
import { Bm25Index } from "../../../search/lexical/bm25-index.js";
import { sourceOrdinal } from "../../../search/lexical/source-ordinals.js";

export interface LexicalCacheOptions {
  /** chunks held in all tenants' indexes (0: no cache; every search runs the SQL statement) */
  maxChunks: number;
  /** how long a tenant's generation must stay unchanged before it is loaded (default 2,000 ms) */
  settleMs?: number;
  /** rows read per page of a load (default 5,000) */
  page?: number;
}

/** A tenant's index as of one generation; `sources` maps data source ids to the index's ordinals. */
export interface HeldIndex {
  index: Bm25Index;
  sources: Map<string, number>;
  generation: string;
  usedAt: number;
}

interface ChunkTermsRow {
  id: string;
  data_source_id: string;
  lex_length: number;
  lex_terms: string[];
  lex_tfs: number[];
}

/** the tenant's generation and size ($1 tenant) */
export const GENERATION_SQL = "SELECT generation::text AS generation, chunks FROM lexical_stats WHERE tenant_id = $1";
/**
 * A page of the tenant's stored terms ($1 tenant, $2 after this id, $3 rows), ordered by the
 * column: ordered by the output column id (text), "100" would come before "96".
 */
export const PAGE_SQL = `SELECT c.id::text AS id, c.data_source_id, c.lex_length, c.lex_terms, c.lex_tfs FROM chunks c
  WHERE c.tenant_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3`;

/** tenants whose generation is remembered for the settle rule before the memory starts over */
const SEEN_MAX = 10_000;
/** a tenant too large for the cache is probed again after this long (it may have shrunk) */
const TOO_LARGE_RECHECK_MS = 30_000;

export class PgLexicalCache {
  private readonly held = new Map<string, HeldIndex>();
  /** the generation each tenant was last seen at, and since when */
  private readonly seen = new Map<string, { generation: string; since: number }>();
  private readonly loading = new Map<string, Promise<void>>();
  /** tenants found larger than the cache, until when they are not probed again (the statement answers them) */
  private readonly tooLarge = new Map<string, number>();
  /** loads that failed (the statement answered those tenants meanwhile) */
  private failures = 0;

  private readonly settleMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly opts: LexicalCacheOptions,
  ) {
    this.settleMs = opts.settleMs ?? 2000;
  }

  /**
   * The tenant's index when it holds the tenant's committed state now; otherwise null, and a
   * background load starts when the tenant's content has settled.
   */
  async current(tenantId: string): Promise<HeldIndex | null> {
    if (this.opts.maxChunks <= 0) return null;
    const until = this.tooLarge.get(tenantId);
    if (until !== undefined && Date.now() < until) return null;
    const r = await this.pool.query<{ generation: string | null; chunks: string }>(GENERATION_SQL, [tenantId]);
    const row = r.rows[0];
    const h = this.held.get(tenantId);
    if (h && row && h.generation === row.generation) {
      h.usedAt = Date.now();
      return h;
    }
    if (h) this.held.delete(tenantId);
    const chunks = Number(row?.chunks ?? 0);
    if (chunks > this.opts.maxChunks) {
      if (this.tooLarge.size >= SEEN_MAX) this.tooLarge.clear();
      this.tooLarge.set(tenantId, Date.now() + TOO_LARGE_RECHECK_MS);
    } else if (row?.generation && chunks > 0) this.settle(tenantId, row.generation);
    return null;
  }

  /** Waits for the loads in flight (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.loading.values()]);
  }

  /** tenants held, their chunks and the indexes' bytes, for status and tests */
  stats(): { tenants: number; chunks: number; bytes: number; failures: number } {
    let chunks = 0;
    let bytes = 0;
    for (const h of this.held.values()) {
      chunks += h.index.docCount;
      bytes += h.index.memoryBytes();
    }
    return { tenants: this.held.size, chunks, bytes, failures: this.failures };
  }

  private settle(tenantId: string, generation: string): void {
    const now = Date.now();
    const s = this.seen.get(tenantId);
    if (!s || s.generation !== generation) {
      if (this.seen.size >= SEEN_MAX) this.seen.clear();
      this.seen.set(tenantId, { generation, since: now });
      if (this.settleMs > 0) return;
    } else if (now - s.since < this.settleMs) return;
    if (this.loading.has(tenantId)) return;
    const p = this.load(tenantId, generation)
      // the SQL statement keeps answering; the next settled search tries again
      .catch(() => void this.failures++)
      .finally(() => this.loading.delete(tenantId));
    this.loading.set(tenantId, p);
  }

  private async load(tenantId: string, generation: string): Promise<void> {
    const c = await this.pool.connect();
    try {
      await c.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      const g = await c.query<{ generation: string | null; chunks: string }>(GENERATION_SQL, [tenantId]);
      if (g.rows[0]?.generation !== generation) return; // changed again: a later search starts over
      const chunks = Number(g.rows[0].chunks);
      const held: HeldIndex = { index: new Bm25Index(), sources: new Map(), generation, usedAt: Date.now() };
      held.index.startLoad();
      const size = this.opts.page ?? 5000;
      for (let after = "0"; ; ) {
        const page = await c.query<ChunkTermsRow>(PAGE_SQL, [tenantId, after, size]);
        held.index.loadMore(page.rows.map((r) => ({ key: Number(r.id), source: sourceOrdinal(held.sources, r.data_source_id), chunk: { terms: r.lex_terms, tfs: Uint16Array.from(r.lex_tfs), length: r.lex_length } })));
        if (page.rows.length < size) break;
        after = page.rows[page.rows.length - 1]!.id;
      }
      held.index.finishLoad();
      // the statistics and the rows come from one snapshot: a difference is a defect, never served
      if (held.index.docCount !== chunks) throw new Error(`lexical cache: ${held.index.docCount} rows read for ${chunks} chunks`);
      this.makeRoom(chunks);
      this.held.set(tenantId, held);
    } finally {
      await c.query("COMMIT").catch(() => {});
      c.release();
    }
  }

  private makeRoom(chunks: number): void {
    let total = 0;
    for (const h of this.held.values()) total += h.index.docCount;
    const oldestFirst = [...this.held.entries()].sort((a, b) => a[1].usedAt - b[1].usedAt);
    for (const [tenantId, h] of oldestFirst) {
      if (total + chunks <= this.opts.maxChunks) break;
      this.held.delete(tenantId);
      total -= h.index.docCount;
    }
  }
}
