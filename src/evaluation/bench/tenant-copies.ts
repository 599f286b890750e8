// Fast filling of many bench tenants on PostgreSQL or Citus (citus-tenants.ts): the first K
// tenants are written through the store as the scale loader writes them, and each further tenant
// gets a copy of one of them made in SQL: its documents and chunks copied under its own tenant id
// and sources (the lexical triggers then build its postings and statistics, as for any insert),
// and vectors of its own: the same clustered synthetic space, other draws, so the HNSW graph does
// not hold fifty copies of each point. Writing 1,000,000 chunks through the store took about
// 95 minutes per store on this 2-core machine (mostly analysing text in Node and growing the
// graph one vector at a time); the copies let the full 50 x 20,000 layout load within a session.
//
// Also here: the HNSW graph built once after the load (dropped before it, CREATE INDEX after,
// with the store's own parameters), the usual way to bulk-load pgvector.
import pg from "pg";
import type { BenchTenant } from "./scale/adapter.js";
import type { Loaded, DocRecord } from "./scale/loader.js";
import type { VectorSource } from "./scale/vector-source.js";
import { vectorTable } from "../../store/json.js";
import { admin } from "./postgres.js";
import { HNSW_EF_CONSTRUCTION, HNSW_M, vectorLiteral } from "../../store/postgres/content/pgvector.js";

/** a copy's chunk ids are its source's plus tenant number x this (far above the identity's range) */
const ID_STRIDE = 1_000_000_000n;
const VECTOR_BATCH = 500;

/** the table's written columns (generated ones are left to the database) */
async function columnsOf(c: pg.Client, table: string): Promise<string[]> {
  const r = await c.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'
     ORDER BY ordinal_position`,
    [table],
  );
  return r.rows.map((x) => x.column_name);
}

/** INSERT ... SELECT of `from`'s rows of `table` as `to`'s: tenant, sources and (chunks) ids replaced */
async function copyRows(c: pg.Client, table: "documents" | "chunks", from: BenchTenant, to: BenchTenant, toNumber: number): Promise<void> {
  const cols = await columnsOf(c, table);
  const expr = (col: string) => {
    if (col === "tenant_id") return "$1::text";
    if (col === "data_source_id") return "CASE data_source_id WHEN $3 THEN $4 ELSE $5 END";
    if (col === "id" && table === "chunks") return `id + ${BigInt(toNumber) * ID_STRIDE}`;
    return col;
  };
  await c.query(
    `INSERT INTO ${table} (${cols.join(", ")}) ${table === "chunks" ? "OVERRIDING SYSTEM VALUE" : ""}
     SELECT ${cols.map(expr).join(", ")} FROM ${table} WHERE tenant_id = $2`,
    [to.id, from.id, from.mainSourceId, to.mainSourceId, to.sideSourceId],
  );
}

/** chunk ids of tenant `t` by "document id#position" */
async function chunkIds(c: pg.Client, t: BenchTenant): Promise<Map<string, bigint>> {
  const r = await c.query<{ id: string; document_id: string; position: number }>("SELECT id::text AS id, document_id, position FROM chunks WHERE tenant_id = $1", [t.id]);
  return new Map(r.rows.map((x) => [`${x.document_id}#${x.position}`, BigInt(x.id)]));
}

/** vectors of the copy `to` (number `toNumber`) for the documents of its source tenant */
async function writeVectors(c: pg.Client, indexName: string, docs: DocRecord[], ids: Map<string, bigint>, vectors: VectorSource, from: BenchTenant, to: BenchTenant, toNumber: number): Promise<void> {
  const table = vectorTable(indexName);
  let chunkIdsOut: string[] = [], sources: string[] = [], values: string[] = [];
  const flush = async () => {
    if (chunkIdsOut.length === 0) return;
    await c.query(
      `INSERT INTO ${table} (tenant_id, chunk_id, data_source_id, embedding)
       SELECT $1, i, s, v::halfvec FROM unnest($2::bigint[], $3::text[], $4::text[]) AS u(i, s, v)`,
      [to.id, chunkIdsOut, sources, values],
    );
    chunkIdsOut = [];
    sources = [];
    values = [];
  };
  for (const d of docs) {
    // other draws from the same space: the ordinal decides a document's vectors
    const vs = vectors.again(d.ordinal + toNumber * 10_000_000, d.source, d.count, null);
    for (let p = 0; p < d.count; p++) {
      const id = ids.get(`${d.documentId}#${p}`);
      if (id === undefined) throw new Error(`tenant copy: chunk ${d.documentId}#${p} of ${from.id} is missing`);
      chunkIdsOut.push(String(id + BigInt(toNumber) * ID_STRIDE));
      sources.push(d.side ? to.sideSourceId : to.mainSourceId);
      values.push(vectorLiteral(vs[p]!));
      if (chunkIdsOut.length >= VECTOR_BATCH) await flush();
    }
  }
  await flush();
}

/**
 * Tenants `written`..T-1 of `loaded` become copies of tenants 0..written-1 in turn. The vector
 * column must be halfvec (a table made by this version of the store).
 */
export async function copyTenants(
  url: string,
  loaded: Loaded,
  written: number,
  indexName: string,
  vectors: VectorSource,
  progress: (done: number, total: number) => void,
): Promise<void> {
  await admin(url, async (c) => {
    const ids = new Map<number, Map<string, bigint>>();
    const docs = new Map<number, DocRecord[]>();
    for (let s = 0; s < written; s++) {
      ids.set(s, await chunkIds(c, loaded.tenants[s]!));
      docs.set(s, loaded.docs.filter((d) => d.tenant === s));
    }
    const total = loaded.tenants.length - written;
    for (let t = written; t < loaded.tenants.length; t++) {
      const s = t % written;
      const from = loaded.tenants[s]!;
      const to = loaded.tenants[t]!;
      await c.query("BEGIN");
      await copyRows(c, "documents", from, to, t);
      await copyRows(c, "chunks", from, to, t);
      await writeVectors(c, indexName, docs.get(s)!, ids.get(s)!, vectors, from, to, t);
      await c.query("COMMIT");
      progress(t - written + 1, total);
    }
  });
  loaded.chunks = loaded.tenants.length * (loaded.chunks / written);
}

/** the vector table's HNSW index off for a bulk load; `build` makes it again as the store does */
export async function deferGraph(url: string, indexName: string): Promise<{ build(): Promise<number> }> {
  const t = vectorTable(indexName);
  const type = await admin(url, async (c) => {
    const r = await c.query<{ typname: string }>(
      `SELECT ty.typname FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid WHERE a.attrelid = to_regclass($1) AND a.attname = 'embedding'`,
      [t],
    );
    await c.query(`DROP INDEX IF EXISTS ${t}_hnsw`);
    return r.rows[0]!.typname;
  });
  return {
    build: () =>
      admin(url, async (c) => {
        const t0 = performance.now();
        // the graph in memory while it is built (pgvector's slow on-disk path otherwise); on Citus
        // the setting goes with the statement to the workers, which build each shard's graph
        await c.query("BEGIN");
        await c.query("SET LOCAL citus.propagate_set_commands = 'local'");
        await c.query("SET LOCAL maintenance_work_mem = '2GB'");
        await c.query(`CREATE INDEX ${t}_hnsw ON ${t} USING hnsw (embedding ${type}_cosine_ops) WITH (m = ${HNSW_M}, ef_construction = ${HNSW_EF_CONSTRUCTION})`);
        await c.query("COMMIT");
        return (performance.now() - t0) / 1000;
      }),
  };
}
