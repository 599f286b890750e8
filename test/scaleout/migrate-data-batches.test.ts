// migrate-data writes a batch's chunks per tenant in one transaction (replaceDocumentsIndex), not
// one per document: two tenants in one chunk batch, one of them with a document whose chunks are
// only partly embedded (written on its own path) and one never embedded. The copy keeps every
// chunk, vector, status and updated_at; the chunk rows of each tenant's whole-embedded documents
// carry one transaction id (xmin), where a write per document would leave one per document.
// `npm run test:citus` runs it with a Citus database as the target (each tenant's rows on one shard).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, createSource, type TestServer } from "../kit/index.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";
import { loadConfig } from "../../src/config.js";
import { openStore } from "../../src/store/open.js";
import { migrateData } from "../../src/store/migrate-data.js";
import { openSqliteTransferSource } from "../../src/store/sqlite/transfer.js";
import { openPostgresTransferTarget } from "../../src/store/postgres/transfer.js";
import { newId } from "../../src/store/ids.js";

const skip = await pgUnavailableReason();
if (skip) console.log(`skipping migrate-data batches: ${skip}`);

/** a unit vector that differs per (document, position) */
function vector(dim: number, seed: number): Float32Array {
  const v = new Float32Array(dim).map((_, i) => Math.sin(seed * 7.3 + i));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

interface Made {
  tenantId: string;
  /** documents whose chunks are all embedded in one index */
  whole: string[];
  partly: string | null;
  never: string | null;
}

describe.skipIf(skip !== null)("migrate-data chunk batches", () => {
  let db: TestDatabase;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-migrate-batches-"));
  const made: Made[] = [];

  /** `n` documents of 1-3 chunks, all embedded; with `odd`, two of 2 chunks, one partly embedded and one never */
  async function fill(s: TestServer, name: string, n: number, odd: boolean): Promise<Made> {
    const t = await s.tenant(name);
    const source = await createSource(s, t.adminKey);
    const content = s.rt.store.content;
    const { index_name: index, dimension } = s.rt.activeProfile;
    await content.ensureVectorIndex(index!, dimension);
    const docs = await content.upsertDocuments(
      t.id,
      source,
      Array.from({ length: n + (odd ? 2 : 0) }, (_, i) => ({
        id: newId("doc"), source: `${name}-${i}.txt`, title: `${name} ${i}`, source_type: "upload", kind: "text",
        content_type: "text/plain", size_bytes: 10, content_hash: `${name}${i}`, metadata: { i },
      })),
      null,
    );
    const out: Made = { tenantId: t.id, whole: [], partly: null, never: null };
    for (const [i, d] of docs.entries()) {
      const chunks = Array.from({ length: i < n ? 1 + (i % 3) : 2 }, (_, p) => ({ position: p, text: `${name} harbour crane ${i} part ${p}`, heading_path: [], token_count: 6, metadata: {} }));
      const embedded = i < n;
      await content.replaceDocumentIndex(t.id, d.id, { title: d.title, metadata: { i } }, chunks, embedded ? { indexName: index!, values: chunks.map((_, p) => vector(dimension, i * 10 + p)) } : null);
      if (embedded) out.whole.push(d.id);
      else if (i === n) {
        // the first chunk only: a backfill cut off half-way through the document
        const first = (await content.listChunks(t.id, d.id, 10)).chunks.find((c) => c.position === 0)!;
        await content.storeEmbeddings(index!, [{ chunkId: first.id, vector: vector(dimension, 999) }]);
        out.partly = d.id;
      } else out.never = d.id;
    }
    return out;
  }

  beforeAll(async () => {
    db = await createTestDatabase("quarry_migrate_batches");
    // the source is an embedded deployment whichever store the suite's project tests (npm run
    // test:citus sets TEST_STORE=postgres for its servers; the target is then a Citus database)
    const store = process.env.TEST_STORE;
    delete process.env.TEST_STORE;
    const s = await startServer({ DEFAULT_PLAN: "enterprise" }, { dataDir }).finally(() => {
      if (store !== undefined) process.env.TEST_STORE = store;
    });
    try {
      expect(s.rt.store.kind, "the source deployment must be SQLite: run without TEST_STORE=postgres").toBe("sqlite");
      made.push(await fill(s, "Acme", 6, true), await fill(s, "Globex", 4, false));
    } finally {
      await s.close();
    }
  }, 120_000);

  afterAll(async () => {
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("copies both tenants' chunks, vectors, statuses and times, one transaction per tenant and batch", async () => {
    const config = loadConfig({ ...process.env, DATABASE_URL: db.url, DATA_DIR: dataDir, FILE_STORE_URL: "local", LOG_LEVEL: "silent" });
    const store = await openStore(config);
    const source = openSqliteTransferSource(dataDir);
    const target = await openPostgresTransferTarget(db.url, store.content);
    try {
      const lines = await migrateData({ from: dataDir, to: db.url, filesTo: dataDir, batchSize: 500 }, source, target, null);
      for (const l of lines) expect(l, l.entity).toMatchObject({ status: "OK" });
      expect(lines.find((l) => l.entity === "chunks")!.source).toBe(16 + 7);
    } finally {
      await target.close();
      await source.close();
      await store.close();
    }
    const sqlite = (await import("better-sqlite3")).default(path.join(dataDir, "quarry.db"), { readonly: true });
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      if (CITUS_WORKERS.length) {
        const placed = await c.query("SELECT count(*)::int AS n FROM pg_dist_partition WHERE logicalrelid = 'chunks'::regclass AND partmethod = 'h'");
        expect(placed.rows[0].n, "chunks distributed on the Citus target").toBe(1);
      }
      const docQuery = "SELECT id, status, updated_at, chunk_count FROM documents ORDER BY id";
      expect((await c.query(docQuery)).rows).toEqual(sqlite.prepare(docQuery).all());
      const chunkQuery = "SELECT document_id, position, text, embedded_in FROM chunks ORDER BY document_id, position";
      expect((await c.query(chunkQuery)).rows).toEqual(sqlite.prepare(chunkQuery).all());
      const partly = made[0].partly!;
      const embedded = await c.query("SELECT position, embedded_in IS NOT NULL AS e FROM chunks WHERE document_id = $1 ORDER BY position", [partly]);
      expect(embedded.rows.map((r) => r.e)).toEqual([true, false]);
      for (const m of made) {
        const x = await c.query("SELECT count(DISTINCT xmin::text)::int AS n, count(*)::int AS chunks FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2)", [m.tenantId, m.whole]);
        expect(x.rows[0].chunks).toBeGreaterThan(m.whole.length);
        expect(x.rows[0].n, "transactions that wrote the tenant's whole-embedded documents").toBe(1);
      }
    } finally {
      await c.end();
      sqlite.close();
    }
  }, 120_000);
});
