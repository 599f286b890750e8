// Originals in PostgreSQL (migration 110): the scale-out default, so API and worker processes
// share nothing but the database and Redis. A file is a row of stored_files and its bytes in
// chunks of stored_file_chunks, written in one transaction: a reader sees the whole file or none,
// also when the writer is killed mid-write (the transaction never commits). Uploads still stream
// into a local temp file first (the upload route measures and sniffs it there).
import fsp from "node:fs/promises";
import { randomUUID } from "node:crypto";
import type { FileStore, StagedFile, StoredFile } from "../files.js";
import { tempArea } from "../files.js";
import { transaction, type Client, type Pool } from "./db.js";

/** bytes per chunk row: small enough for one round trip each, large enough to keep rows few */
export const FILE_CHUNK_BYTES = 256 * 1024;
/** chunk rows per INSERT */
const CHUNKS_PER_INSERT = 4;
const PLACED = "";

/** Two writers of one name wait for each other (until commit), so the later one replaces the earlier. */
const lockName = (c: Client, tenantId: string, documentId: string, tag: string) =>
  c.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`stored_files/${tenantId}/${documentId}/${tag}`]);

/** Writes the temp file as (tenant, document, tag) inside the caller's transaction, replacing any earlier one. */
async function writeFile(c: Client, tenantId: string, documentId: string, tag: string, tempPath: string): Promise<void> {
  await lockName(c, tenantId, documentId, tag);
  await c.query("DELETE FROM stored_files WHERE tenant_id = $1 AND document_id = $2 AND tag = $3", [tenantId, documentId, tag]);
  const blobId = randomUUID();
  const fh = await fsp.open(tempPath, "r");
  try {
    const { size } = await fh.stat();
    await c.query("INSERT INTO stored_files (tenant_id, document_id, tag, blob_id, size) VALUES ($1, $2, $3, $4, $5)", [tenantId, documentId, tag, blobId, size]);
    let seq = 0;
    for (let offset = 0; offset < size; ) {
      const rows: Buffer[] = [];
      while (rows.length < CHUNKS_PER_INSERT && offset < size) {
        const buf = Buffer.alloc(Math.min(FILE_CHUNK_BYTES, size - offset));
        const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
        if (bytesRead !== buf.length) throw new Error(`temp file ${tempPath} shrank while it was stored`);
        rows.push(buf);
        offset += buf.length;
      }
      const values = rows.map((_, i) => `($1, $2, $${i * 2 + 3}, $${i * 2 + 4})`).join(", ");
      await c.query(`INSERT INTO stored_file_chunks (tenant_id, blob_id, seq, data) VALUES ${values}`, [tenantId, blobId, ...rows.flatMap((r) => [seq++, r])]);
    }
  } finally {
    await fh.close();
  }
}

/** the PostgreSQL file store on the store's pool; uploads in flight go to `tempDir` (local) */
export function pgFileStore(pool: Pool, tempDir: string): FileStore {
  const tempPath = tempArea(tempDir);
  const store = async (t: string, d: string, tag: string, temp: string) => {
    await transaction(pool, (c) => writeFile(c, t, d, tag, temp));
    await fsp.rm(temp, { force: true }); // moved, as a rename would have
  };
  return {
    describe: "PostgreSQL (stored_files)",
    put: (t, d, temp) => store(t, d, PLACED, temp),
    stage: (t, d, tag, temp) => store(t, d, tag, temp),
    async place(t, stagedAs, tag, d) {
      await transaction(pool, async (c) => {
        await lockName(c, t, d, PLACED);
        // the placed version goes only when a staged one takes its place (a second placing finds none)
        const staged = await c.query("SELECT 1 FROM stored_files WHERE tenant_id = $1 AND document_id = $2 AND tag = $3 FOR UPDATE", [t, stagedAs, tag]);
        if (staged.rowCount === 0) throw Object.assign(new Error(`no staged file ${t}/${stagedAs}.${tag}`), { code: "ENOENT" });
        await c.query("DELETE FROM stored_files WHERE tenant_id = $1 AND document_id = $2 AND tag = $3", [t, d, PLACED]);
        await c.query("UPDATE stored_files SET document_id = $4, tag = $5 WHERE tenant_id = $1 AND document_id = $2 AND tag = $3", [t, stagedAs, tag, d, PLACED]);
      });
    },
    async discardStaged(t, d, tag) {
      await pool.query("DELETE FROM stored_files WHERE tenant_id = $1 AND document_id = $2 AND tag = $3", [t, d, tag]);
    },
    async staged(): Promise<StagedFile[]> {
      const r = await pool.query<{ tenant_id: string; document_id: string; tag: string; age_ms: number }>(
        "SELECT tenant_id, document_id, tag, (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms FROM stored_files WHERE tag <> ''",
      );
      return r.rows.map((x) => ({ tenantId: x.tenant_id, documentId: x.document_id, tag: x.tag, ageMs: x.age_ms }));
    },
    async read(t, d) {
      // one statement, so one snapshot: a file replaced meanwhile is read whole, old or new
      const r = await pool.query<{ data: Buffer | null }>(
        `SELECT c.data FROM stored_files f LEFT JOIN stored_file_chunks c ON c.tenant_id = f.tenant_id AND c.blob_id = f.blob_id
         WHERE f.tenant_id = $1 AND f.document_id = $2 AND f.tag = '' ORDER BY c.seq`,
        [t, d],
      );
      if (r.rowCount === 0) return null;
      return Buffer.concat(r.rows.flatMap((x) => (x.data ? [x.data] : [])));
    },
    async remove(t, d) {
      await pool.query("DELETE FROM stored_files WHERE tenant_id = $1 AND document_id = $2 AND tag = ''", [t, d]);
    },
    async removeTenant(t) {
      await pool.query("DELETE FROM stored_files WHERE tenant_id = $1", [t]);
    },
    async *list(): AsyncIterable<StoredFile> {
      let after: [string, string] = ["", ""];
      for (;;) {
        const r = await pool.query<{ tenant_id: string; document_id: string; size: number }>(
          `SELECT tenant_id, document_id, size FROM stored_files WHERE tag = '' AND (tenant_id, document_id) > ($1, $2)
           ORDER BY tenant_id, document_id LIMIT 1000`,
          after,
        );
        for (const x of r.rows) yield { tenantId: x.tenant_id, documentId: x.document_id, size: x.size };
        if (r.rows.length < 1000) return;
        const last = r.rows.at(-1)!;
        after = [last.tenant_id, last.document_id];
      }
    },
    tempPath,
  };
}
