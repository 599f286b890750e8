// quarry backup | restore | export.
//
// A backup is one .tar.gz: manifest.json, quarry.db (SQLite's online backup: a consistent snapshot
// taken while the service keeps writing) and files/ (the stored originals, linked from
// DATA_DIR/files or, with FILE_STORE_URL=s3://..., read from object storage; restore puts them
// back into the configured store). The database is copied
// first and the files after it, so every document the snapshot knows already has its file on disk
// (an upload stores the file before it acknowledges). Models and the mail outbox are left out: the
// models are downloaded or copied again, the outbox is a log of sent mail.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import * as tar from "tar";
import type { Config } from "../config.js";
import { VERSION } from "../version.js";
import { backupSqlite, DB_FILE, integrityProblems, migrateSqlite } from "../store/sqlite/maintenance.js";
import type { Store } from "../store/types.js";
import { CliError } from "../terminal/errors.js";
import { createProgress } from "../terminal/progress.js";
import { localFileStore, type FileStore } from "../store/files.js";
import { openConfiguredFileStore } from "../store/open-files.js";

/** the configured file store where it is not DATA_DIR/files (the backup commands cover SQLite, so: S3) */
const remoteFiles = (config: Config): Promise<FileStore> | null => (config.fileStore.kind === "local" ? null : openConfiguredFileStore(config, null));

/** Writes every original of `files` under `to/<tenant>/<document>`; returns how many. */
async function copyOut(files: FileStore, to: string): Promise<number> {
  let count = 0;
  for await (const f of files.list()) {
    const bytes = await files.read(f.tenantId, f.documentId);
    if (!bytes) continue; // removed since it was listed
    await fsp.mkdir(path.join(to, f.tenantId), { recursive: true });
    await fsp.writeFile(path.join(to, f.tenantId, f.documentId), bytes);
    count++;
  }
  return count;
}

/** Moves the restored DATA_DIR/files into the configured store, leaving the directory empty. */
async function copyIn(dataDir: string, files: FileStore): Promise<void> {
  const local = localFileStore(path.join(dataDir, FILES_DIR));
  const tenants = new Set<string>();
  for await (const f of local.list()) {
    const temp = files.tempPath();
    await fsp.copyFile(path.join(dataDir, FILES_DIR, f.tenantId, f.documentId), temp);
    await files.put(f.tenantId, f.documentId, temp);
    tenants.add(f.tenantId);
  }
  for (const t of tenants) await local.removeTenant(t);
}

const MANIFEST = "manifest.json";
const FILES_DIR = "files";

interface Manifest {
  format: "quarry-backup";
  format_version: 1;
  quarry_version: string;
  created_at: string;
  migrations: string[];
}

function requireSqlite(config: Config, what: string): void {
  if (config.databaseUrl) {
    throw new CliError(`quarry ${what} covers the embedded SQLite store, and DATABASE_URL selects PostgreSQL`, "Use pg_dump/pg_restore for the database and copy DATA_DIR/files alongside, or unset DATABASE_URL");
  }
}

/** Writes a consistent archive of DATA_DIR to `file` (written beside it, then renamed into place). */
export async function backupCommand(config: Config, file: string): Promise<{ file: string; bytes: number; files: number }> {
  requireSqlite(config, "backup");
  const target = path.resolve(file);
  if (!fs.existsSync(path.join(config.dataDir, DB_FILE))) {
    throw new CliError(`There is no Quarry database in ${config.dataDir}`, "Set DATA_DIR to the data directory the service uses");
  }
  await fsp.mkdir(path.dirname(target), { recursive: true });
  // The stage sits inside DATA_DIR so the stored files can be hard-linked into it: uploads keep
  // renaming and deleting files while the backup runs, and tar fails on a file that vanishes
  // between its directory listing and its stat. Linking first freezes the set in milliseconds.
  const stage = await fsp.mkdtemp(path.join(config.dataDir, ".backup-"));
  const partial = `${target}.partial`;
  try {
    const { migrations } = await backupSqlite(config.dataDir, path.join(stage, DB_FILE));
    const manifest: Manifest = { format: "quarry-backup", format_version: 1, quarry_version: VERSION, created_at: new Date().toISOString(), migrations };
    await fsp.writeFile(path.join(stage, MANIFEST), JSON.stringify(manifest, null, 2));
    const entries = [MANIFEST, DB_FILE];
    const remote = await remoteFiles(config);
    const count = remote ? await copyOut(remote, path.join(stage, FILES_DIR)) : await linkStoredFiles(path.join(config.dataDir, FILES_DIR), path.join(stage, FILES_DIR));
    if (count > 0) entries.push(FILES_DIR);
    await tar.c({ gzip: true, file: partial, cwd: stage, portable: true }, entries);
    await fsp.rename(partial, target);
    return { file: target, bytes: (await fsp.stat(target)).size, files: count };
  } finally {
    await fsp.rm(partial, { force: true });
    await fsp.rm(stage, { recursive: true, force: true });
  }
}

/**
 * Hard-links every stored file under `from` into `to` (copying where links are refused) and
 * returns how many. files/tmp holds uploads in flight, not stored documents; a file gone before
 * it is linked was deleted or moved by a write that the database snapshot does not need.
 */
async function linkStoredFiles(from: string, to: string): Promise<number> {
  let count = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await fsp.readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return [];
      throw err;
    });
    for (const e of entries) {
      const relPath = path.join(rel, e.name);
      if (rel === "" && e.name === "tmp") continue;
      if (e.isDirectory()) {
        await walk(path.join(dir, e.name), relPath);
      } else if (e.isFile()) {
        const dest = path.join(to, relPath);
        await fsp.mkdir(path.dirname(dest), { recursive: true });
        try {
          await fsp.link(path.join(dir, e.name), dest).catch(async (err: NodeJS.ErrnoException) => {
            if (err.code === "ENOENT") throw err;
            await fsp.copyFile(path.join(dir, e.name), dest);
          });
          count++;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        }
      }
    }
  };
  await walk(from, "");
  return count;
}

async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    return (await fsp.readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
}

/** Unpacks a backup into an empty DATA_DIR, checks it and brings its schema up to date. */
export async function restoreCommand(config: Config, file: string): Promise<{ dataDir: string; migrationsApplied: string[] }> {
  requireSqlite(config, "restore");
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new CliError(`No backup file at ${source}`, "Pass the path of an archive made by `quarry backup`");
  if (!(await isEmptyDir(config.dataDir))) {
    throw new CliError(`DATA_DIR ${config.dataDir} is not empty; restore never overwrites data`, "Point DATA_DIR at a new, empty directory (or move the old one away) and run restore again");
  }
  await fsp.mkdir(config.dataDir, { recursive: true });
  try {
    const names: string[] = [];
    try {
      await tar.t({ file: source, onReadEntry: (e) => void names.push(e.path) });
    } catch {
      throw new CliError(`${source} is not a gzip tar archive`, "Pass an archive made by `quarry backup`");
    }
    if (!names.includes(MANIFEST) || !names.includes(DB_FILE)) {
      throw new CliError(`${source} is not a Quarry backup (no ${MANIFEST} or ${DB_FILE})`, "Pass an archive made by `quarry backup`");
    }
    // strict: no absolute paths or .. entries can escape DATA_DIR
    await tar.x({ file: source, cwd: config.dataDir, strict: true, preservePaths: false });
    const manifest = JSON.parse(await fsp.readFile(path.join(config.dataDir, MANIFEST), "utf8")) as Partial<Manifest>;
    if (manifest.format !== "quarry-backup") throw new CliError(`${source} has an unknown manifest format`, "Pass an archive made by `quarry backup`");
    const problem = integrityProblems(path.join(config.dataDir, DB_FILE));
    if (problem) throw new CliError(`The database in ${source} is damaged (${problem})`, "Restore an earlier backup");
    await fsp.rm(path.join(config.dataDir, MANIFEST));
    const { applied } = migrateSqlite(config.dataDir);
    const remote = await remoteFiles(config);
    if (remote) await copyIn(config.dataDir, remote);
    return { dataDir: config.dataDir, migrationsApplied: applied };
  } catch (err) {
    // leave the directory as empty as it was, so the operator can simply try again
    for (const entry of await fsp.readdir(config.dataDir)) await fsp.rm(path.join(config.dataDir, entry), { recursive: true, force: true });
    throw err;
  }
}

/** documents.jsonl and chunks.jsonl of each tenant (or one) under `outDir/<tenant slug>/`. */
export async function exportCommand(store: Store, outDir: string, tenant: string | null): Promise<{ tenant: string; documents: number; chunks: number; dir: string }[]> {
  const all = await store.tenants.list();
  const tenants = tenant ? all.filter((t) => t.id === tenant || t.slug === tenant) : all;
  if (tenant && tenants.length === 0) throw new CliError(`No tenant '${tenant}'`, "Run `quarry tenants list` for the ids and slugs");
  const out: { tenant: string; documents: number; chunks: number; dir: string }[] = [];
  for (const t of tenants) {
    const dir = path.resolve(outDir, t.slug);
    await fsp.mkdir(dir, { recursive: true });
    const ids = await store.content.documentIds(t.id);
    const docs = fs.createWriteStream(path.join(dir, "documents.jsonl"));
    const chunks = fs.createWriteStream(path.join(dir, "chunks.jsonl"));
    const bar = createProgress(`export ${t.slug}`);
    let chunkCount = 0;
    let docCount = 0;
    for (const [i, id] of ids.entries()) {
      const d = await store.content.getDocument(t.id, id);
      if (d) {
        docCount++;
        await write(docs, { ...d, tenant_slug: t.slug });
        const { chunks: rows } = await store.content.listChunks(t.id, id, Number.MAX_SAFE_INTEGER);
        for (const c of rows) await write(chunks, c);
        chunkCount += rows.length;
      }
      bar.update(i + 1, ids.length, `${chunkCount} chunks`);
    }
    bar.stop();
    await Promise.all([close(docs), close(chunks)]);
    out.push({ tenant: t.slug, documents: docCount, chunks: chunkCount, dir });
  }
  return out;
}

async function write(stream: fs.WriteStream, row: unknown): Promise<void> {
  if (!stream.write(`${JSON.stringify(row)}\n`)) await new Promise<void>((r) => stream.once("drain", () => r()));
}

const close = (stream: fs.WriteStream) => new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
