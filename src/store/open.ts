// Opens the configured store: the embedded SQLite database in DATA_DIR, or (DATABASE_URL) the
// scale-out store. Kept apart from the runtime so CLI tasks that need only the store load only it.
import type { Config } from "../config.js";
import type { Store } from "./types.js";
import { openSqliteStore, type SqliteStoreOptions } from "./sqlite/index.js";

export async function openStore(config: Config, opts: SqliteStoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
    throw new Error("DATABASE_URL (PostgreSQL) is not supported yet; unset it to use the embedded SQLite store.");
  }
  return openSqliteStore(config.dataDir, opts);
}
