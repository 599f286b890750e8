// Opens the configured file store (FILE_STORE_URL): DATA_DIR/files, the PostgreSQL store's own
// tables, or S3-compatible storage. Each backend is imported only when chosen.
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config.js";
import type { Store } from "./types.js";
import { localFileStore, type FileStore } from "./files.js";
import type { PostgresStore } from "./postgres/index.js";

/** uploads in flight, on this process's own disk whatever the store */
const tempDirOf = (config: Config) => path.join(config.dataDir, "files", "tmp");

/**
 * A deployment upgraded from a shared DATA_DIR may still hold originals in DATA_DIR/files: reads
 * fall back to them, and removals reach both, so nothing indexed before the move needs a
 * re-upload; a re-upload or a new version lands in the configured store.
 */
function withLegacyFallback(primary: FileStore, legacy: FileStore): FileStore {
  return {
    ...primary,
    describe: `${primary.describe} (earlier files read from ${legacy.describe})`,
    async read(t, d) {
      return (await primary.read(t, d)) ?? legacy.read(t, d);
    },
    async remove(t, d) {
      await Promise.all([primary.remove(t, d), legacy.remove(t, d)]);
    },
    async removeTenant(t) {
      await Promise.all([primary.removeTenant(t), legacy.removeTenant(t)]);
    },
  };
}

/** true when DATA_DIR/files holds any tenant's originals */
function hasLegacyFiles(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some((e) => e !== "tmp");
  } catch {
    return false;
  }
}

/** The file store the configuration names, without the legacy fallback (store: null outside PostgreSQL). */
export async function openConfiguredFileStore(config: Config, store: Store | null): Promise<FileStore> {
  const fsConf = config.fileStore;
  if (fsConf.kind === "local") return localFileStore(path.join(config.dataDir, "files"));
  if (fsConf.kind === "postgres") {
    if (store?.kind !== "postgres") throw new Error("FILE_STORE_URL=postgres needs the PostgreSQL store (DATABASE_URL)");
    const { pgFileStore } = await import("./postgres/files.js");
    return pgFileStore((store as PostgresStore).pool, tempDirOf(config));
  }
  const { s3FileStore } = await import("./s3/files.js");
  return s3FileStore(fsConf, tempDirOf(config));
}

/** The runtime's file store: the configured one, reading earlier local originals where they remain. */
export async function openFileStore(config: Config, store: Store): Promise<FileStore> {
  const primary = await openConfiguredFileStore(config, store);
  const legacyDir = path.join(config.dataDir, "files");
  if (config.fileStore.kind === "local" || !hasLegacyFiles(legacyDir)) return primary;
  return withLegacyFallback(primary, localFileStore(legacyDir));
}
