// quarry migrate-data --from DATA_DIR --to postgres://...: copies an embedded deployment into the
// scale-out store, entity by entity in batches (store/transfer-types.ts), resuming after the last
// committed batch when run again, copies the stored originals into the target's file store
// (FILE_STORE_URL: PostgreSQL by default, or S3-compatible storage; --files-to DIR for a shared
// directory), and ends with a table of source and target counts per entity (docs/decisions.md,
// "migrate-data").
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { TRANSFER_ENTITIES, type TransferEntity, type TransferSource, type TransferTarget } from "./transfer-types.js";
import { createProgress, type Progress } from "../terminal/progress.js";
import { CliError } from "../terminal/errors.js";
import { loadConfig } from "../config.js";
import { localFileStore, type FileStore } from "../store/files.js";

export interface MigrateDataOptions {
  from: string;
  to: string;
  /** shared DATA_DIR of the scale-out deployment: stored files go to <dir>/files (null: to the configured file store) */
  filesTo: string | null;
  /** rows per batch (chunks: documents per batch) */
  batchSize: number;
}

export interface CountLine {
  entity: string;
  source: number;
  target: number;
  status: "OK" | "MISMATCH";
}

/**
 * documents per chunk batch (at most --batch-size): a document has up to tens of chunks, each with
 * a vector; the target writes a batch's documents of one tenant in one transaction, so larger
 * batches mean fewer rounds of statements and triggers (docs/decisions.md, "migrate-data")
 */
const CHUNK_DOCS_PER_BATCH = 100;

async function copyEntity(entity: TransferEntity, source: TransferSource, target: TransferTarget, after: (string | number)[] | null, o: MigrateDataOptions, tick: (n: number) => void): Promise<void> {
  const limit = entity === "chunks" ? Math.min(CHUNK_DOCS_PER_BATCH, o.batchSize) : o.batchSize;
  let cursor = after;
  for (;;) {
    const batch = await source.readBatch(entity, cursor, limit);
    if (!batch.last) break;
    await target.writeBatch(entity, batch.rows, batch.last);
    cursor = batch.last;
    tick(batch.rows.length);
  }
  await target.finish(entity);
}

/** the originals of a file store: "<tenant>/<document>" -> size */
async function storedFiles(files: FileStore): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for await (const f of files.list()) out.set(`${f.tenantId}/${f.documentId}`, f.size);
  return out;
}

/** Where the originals go: from DATA_DIR/files into the target's file store. */
export interface FileCopy {
  from: FileStore;
  to: FileStore;
}

/** Copies files missing (or of another size) at the target; each write is atomic, so a copy cut off never looks done. */
async function copyFiles(c: FileCopy, progress: Progress): Promise<void> {
  const files = await storedFiles(c.from);
  const there = await storedFiles(c.to);
  let done = 0;
  for (const [rel, size] of files) {
    if (there.get(rel) !== size) {
      const [tenantId, documentId] = rel.split("/");
      const bytes = await c.from.read(tenantId, documentId);
      if (bytes) {
        const temp = c.to.tempPath();
        await fsp.writeFile(temp, bytes);
        await c.to.put(tenantId, documentId, temp);
      }
    }
    progress.update(++done, files.size, "stored files");
  }
}

export async function countLines(source: TransferSource, target: TransferTarget, files: FileCopy | null): Promise<CountLine[]> {
  const line = (entity: string, s: number, t: number): CountLine => ({ entity, source: s, target: t, status: s === t ? "OK" : "MISMATCH" });
  const lines: CountLine[] = [];
  for (const e of TRANSFER_ENTITIES) lines.push(line(e, await source.count(e), await target.count(e)));
  lines.push(line("chunk vectors", await source.countVectors(), await target.countVectors()));
  if (files) lines.push(line("stored files", (await storedFiles(files.from)).size, (await storedFiles(files.to)).size));
  return lines;
}

export function renderCounts(lines: CountLine[]): string {
  const head = ["entity", "source", "target", "status"];
  const rows = lines.map((l) => [l.entity, String(l.source), String(l.target), l.status]);
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((v, i) => (i === 1 || i === 2 ? v.padStart(width[i]) : v.padEnd(width[i]))).join("  ").trimEnd();
  return [fmt(head), ...rows.map(fmt)].join("\n") + "\n";
}

/** Runs the migration; returns the count lines (the caller prints them and sets the exit code). */
export async function migrateData(o: MigrateDataOptions, source: TransferSource, target: TransferTarget, files: FileCopy | null): Promise<CountLine[]> {
  const progress = await target.begin(`sqlite:${path.resolve(o.from)}`);
  const totals = new Map<TransferEntity, number>();
  for (const e of TRANSFER_ENTITIES) totals.set(e, await source.count(e));
  const total = [...totals.values()].reduce((a, b) => a + b, 0);
  const bar = createProgress("migrate-data");
  let done = 0;
  try {
    for (const e of TRANSFER_ENTITIES) {
      const p = progress.get(e);
      if (p?.done) {
        done += totals.get(e)!;
        bar.update(done, total, `${e}: done before`);
        continue;
      }
      await copyEntity(e, source, target, p?.cursor ?? null, o, (n) => bar.update((done += n), total, e));
      done = [...TRANSFER_ENTITIES].slice(0, TRANSFER_ENTITIES.indexOf(e) + 1).reduce((a, x) => a + totals.get(x)!, 0);
      bar.update(done, total, e);
    }
  } finally {
    bar.stop();
  }
  if (files) {
    const fbar = createProgress("stored files");
    try {
      await copyFiles(files, fbar);
    } finally {
      fbar.stop();
    }
  }
  return countLines(source, target, files);
}

/** The CLI command: opens both sides, migrates, prints the counts; exit code 1 on a mismatch. */
export async function migrateDataCommand(o: MigrateDataOptions): Promise<number> {
  if (!/^postgres(ql)?:\/\//.test(o.to)) throw new CliError(`--to must be a postgres:// URL; got "${o.to}"`, "Pass the scale-out DATABASE_URL, e.g. postgres://user@host:5432/quarry", 2);
  if (!fs.existsSync(path.join(o.from, "quarry.db"))) {
    throw new CliError(`No Quarry database in ${o.from} (quarry.db is missing)`, "Pass the embedded deployment's DATA_DIR as --from", 2);
  }
  const { openSqliteTransferSource } = await import("../store/sqlite/transfer.js");
  const { openPostgresTransferTarget } = await import("../store/postgres/transfer.js");
  const { openStore } = await import("../store/open.js");
  const { openConfiguredFileStore } = await import("../store/open-files.js");
  const source = openSqliteTransferSource(o.from);
  try {
    // the scale-out store itself (it applies its migrations at open) writes the chunks and vectors
    const config = loadConfig({ ...process.env, DATABASE_URL: o.to, DATA_DIR: o.filesTo ?? o.from, ...(o.filesTo ? { FILE_STORE_URL: "local" } : {}) });
    const store = await openStore(config);
    const target = await openPostgresTransferTarget(o.to, store.content);
    try {
      // --files-to the directory the files are in already: nothing to copy
      const sameDir = o.filesTo !== null && path.resolve(o.filesTo) === path.resolve(o.from);
      const files = sameDir ? null : { from: localFileStore(source.filesDir), to: await openConfiguredFileStore(config, store) };
      const lines = await migrateData(o, source, target, files);
      process.stdout.write(renderCounts(lines));
      const bad = lines.filter((l) => l.status === "MISMATCH");
      if (bad.length) process.stderr.write(`quarry: counts differ for ${bad.map((l) => l.entity).join(", ")}\n`);
      return bad.length ? 1 : 0;
    } finally {
      await target.close();
      await store.close();
    }
  } finally {
    await source.close();
  }
}
