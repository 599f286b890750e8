// Opens the configured store: the embedded SQLite database in DATA_DIR, or (DATABASE_URL) the
// scale-out PostgreSQL store. Kept apart from the runtime so CLI tasks that need only the store
// load only it; each backend's driver is imported only when chosen.
import type { Config } from "../config.js";
import type { Store } from "./types.js";
import type { SqliteStoreOptions } from "./sqlite/index.js";

export async function openStore(config: Config, opts: SqliteStoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import("./postgres/index.js");
    return openPostgresStore(config.databaseUrl, { lexicalCacheChunks: config.pgLexicalCacheChunks });
  }
  const { openSqliteStore } = await import("./sqlite/index.js");
  return openSqliteStore(config.dataDir, opts);
}
