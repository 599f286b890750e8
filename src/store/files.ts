// Original files of documents, kept so reindexing can re-parse them: DATA_DIR/files/<tenant>/<doc>.
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";

export interface FileStore {
  /** moves a finished temp file into place (atomic rename on the same filesystem) */
  put(tenantId: string, documentId: string, tempPath: string): Promise<void>;
  read(tenantId: string, documentId: string): Promise<Buffer | null>;
  remove(tenantId: string, documentId: string): Promise<void>;
  removeTenant(tenantId: string): Promise<void>;
  /** a fresh temp path on the same filesystem as the store */
  tempPath(): string;
}

const safe = (s: string) => {
  if (!/^[A-Za-z0-9_-]+$/.test(s)) throw new Error(`unsafe path segment '${s}'`);
  return s;
};

export function localFileStore(root: string): FileStore {
  const tmp = path.join(root, "tmp");
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
  const fileOf = (t: string, d: string) => path.join(root, safe(t), safe(d));
  return {
    async put(t, d, temp) {
      await fsp.mkdir(path.join(root, safe(t)), { recursive: true });
      await fsp.rename(temp, fileOf(t, d));
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
    tempPath() {
      return path.join(tmp, `${process.pid}-${Date.now()}-${n++}`);
    },
  };
}
