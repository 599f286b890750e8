// Original files of documents, kept so reindexing can re-parse them. The interface, the local
// directory implementation (DATA_DIR/files/<tenant>/<doc>, the embedded default) and the temp
// area every implementation streams uploads into. PostgreSQL (store/postgres/files.ts) and
// S3-compatible storage (store/s3/files.ts) keep them where no disk is shared; store/open-files.ts
// picks one from the configuration.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

/** A file moved next to its final place but not yet placed (see services/acceptance.ts). */
export interface StagedFile {
  tenantId: string;
  documentId: string;
  tag: string;
  ageMs: number;
}

/** A placed file (the original of a document), as listed for copies and backups. */
export interface StoredFile {
  tenantId: string;
  documentId: string;
  size: number;
}

/**
 * Every write is atomic: a reader sees a whole file or none, also after the writing process is
 * killed mid-write (a rename, one transaction, one PUT).
 */
export interface FileStore {
  /** where the originals live, for logs and health ("local directory /data/files") */
  readonly describe: string;
  /** moves a finished temp file into place (atomic rename on the same filesystem) */
  put(tenantId: string, documentId: string, tempPath: string): Promise<void>;
  /** moves a finished temp file beside its final place, under a tag naming its version */
  stage(tenantId: string, documentId: string, tag: string, tempPath: string): Promise<void>;
  /** puts a staged file in place as the file of `documentId` (atomic rename) */
  place(tenantId: string, stagedAs: string, tag: string, documentId: string): Promise<void>;
  discardStaged(tenantId: string, documentId: string, tag: string): Promise<void>;
  /** every staged file, for recovery after a crash */
  staged(): Promise<StagedFile[]>;
  read(tenantId: string, documentId: string): Promise<Buffer | null>;
  remove(tenantId: string, documentId: string): Promise<void>;
  removeTenant(tenantId: string): Promise<void>;
  /** every placed file (staged and temp files left out) */
  list(): AsyncIterable<StoredFile>;
  /** a fresh local temp path (on the same filesystem as the store, where it is a directory) */
  tempPath(): string;
}

const STAGED = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9]+)\.incoming$/;

const safe = (s: string) => {
  if (!/^[A-Za-z0-9_-]+$/.test(s)) throw new Error(`unsafe path segment '${s}'`);
  return s;
};

/** A local directory for uploads in flight; returns a maker of fresh paths in it. */
export function tempArea(tmp: string): () => string {
  fs.mkdirSync(tmp, { recursive: true });
  // Uploads cut off by a crash leave temp files behind. Only old ones go: another process
  // sharing DATA_DIR may be streaming an upload right now.
  const staleBefore = Date.now() - 60 * 60 * 1000;
  for (const f of fs.readdirSync(tmp)) {
    const p = path.join(tmp, f);
    try {
      if (fs.statSync(p).mtimeMs < staleBefore) fs.rmSync(p, { force: true });
    } catch {
      /* gone meanwhile */
    }
  }
  let n = 0;
  return () => path.join(tmp, `${process.pid}-${Date.now()}-${n++}`);
}

export function localFileStore(root: string): FileStore {
  const tempPath = tempArea(path.join(root, "tmp"));
  const fileOf = (t: string, d: string) => path.join(root, safe(t), safe(d));
  const stagedOf = (t: string, d: string, tag: string) => path.join(root, safe(t), `${safe(d)}.${safe(tag)}.incoming`);
  return {
    describe: `local directory ${root}`,
    async put(t, d, temp) {
      await fsp.mkdir(path.join(root, safe(t)), { recursive: true });
      await fsp.rename(temp, fileOf(t, d));
    },
    async stage(t, d, tag, temp) {
      await fsp.mkdir(path.join(root, safe(t)), { recursive: true });
      await fsp.rename(temp, stagedOf(t, d, tag));
    },
    async place(t, stagedAs, tag, d) {
      await fsp.rename(stagedOf(t, stagedAs, tag), fileOf(t, d));
    },
    async discardStaged(t, d, tag) {
      await fsp.rm(stagedOf(t, d, tag), { force: true });
    },
    async staged() {
      const out: StagedFile[] = [];
      const now = Date.now();
      for (const t of await fsp.readdir(root)) {
        if (t === "tmp" || !/^[A-Za-z0-9_-]+$/.test(t)) continue;
        const names = await fsp.readdir(path.join(root, t)).catch(() => [] as string[]);
        for (const name of names) {
          const m = STAGED.exec(name);
          if (!m) continue;
          const stat = await fsp.stat(path.join(root, t, name)).catch(() => null);
          if (stat) out.push({ tenantId: t, documentId: m[1], tag: m[2], ageMs: now - stat.mtimeMs });
        }
      }
      return out;
    },
    async read(t, d) {
      try {
        return await fsp.readFile(fileOf(t, d));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw err;
      }
    },
    async remove(t, d) {
      await fsp.rm(fileOf(t, d), { force: true });
    },
    async removeTenant(t) {
      await fsp.rm(path.join(root, safe(t)), { recursive: true, force: true });
    },
    async *list() {
      for (const t of await fsp.readdir(root).catch(() => [] as string[])) {
        if (t === "tmp" || !/^[A-Za-z0-9_-]+$/.test(t)) continue;
        for (const e of await fsp.readdir(path.join(root, t), { withFileTypes: true }).catch(() => [])) {
          if (!e.isFile() || !/^[A-Za-z0-9_-]+$/.test(e.name)) continue;
          const stat = await fsp.stat(path.join(root, t, e.name)).catch(() => null);
          if (stat) yield { tenantId: t, documentId: e.name, size: stat.size };
        }
      }
    },
    tempPath,
  };
}
