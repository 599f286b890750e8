// The composition root: builds the store, the services and the background machinery from the
// configuration, and tears them down in reverse order. http/ and cli.ts only talk to a Runtime.
import pino, { type Logger } from "pino";
import type { Config } from "./config.js";
import type { Store } from "./store/types.js";
import { openSqliteStore } from "./store/sqlite/index.js";
import { createAuthService } from "./services/auth.js";
import { createApiKeyService } from "./services/api-keys.js";
import { createTenantService } from "./services/tenants.js";
import { loadProfiles, resolveActiveProfile } from "./embed/profiles.js";
import type { EmbeddingProfile, EmbedderStatus } from "./embed/types.js";
import type { CheckResult } from "./services/system.js";

export const VERSION = "0.2.0";

export interface Runtime {
  config: Config;
  log: Logger;
  store: Store;
  profiles: EmbeddingProfile[];
  activeProfile: EmbeddingProfile;
  auth: ReturnType<typeof createAuthService>;
  apiKeys: ReturnType<typeof createApiKeyService>;
  tenants: ReturnType<typeof createTenantService>;
  /** limits reported by GET /capabilities */
  limits: { pageSizeLimitBytes: number; maxPageLimit: number; fileTypes: string[] };
  embedderStatus(): EmbedderStatus;
  /** queue, index and model checks of GET /health (database is checked by the caller) */
  extraHealthChecks(): Promise<Record<string, CheckResult>>;
  /** the User record of MeOut; accounts fill this in */
  userOut(userId: string): Promise<Record<string, unknown> | null>;
  close(): Promise<void>;
}

export async function createRuntime(config: Config, opts: { log?: Logger } = {}): Promise<Runtime> {
  const log = opts.log ?? pino({ level: config.logLevel });
  if (config.databaseUrl) {
    throw new Error("DATABASE_URL (PostgreSQL) is not supported yet; unset it to use the embedded SQLite store.");
  }
  const store = openSqliteStore(config.dataDir);
  const profiles = loadProfiles({ profilesFile: config.embeddingProfilesFile });
  const activeProfile = resolveActiveProfile(profiles, config.embeddingProfile);
  const auth = createAuthService({ store, platformApiKey: config.platformApiKey });
  return {
    config,
    log,
    store,
    profiles,
    activeProfile,
    auth,
    apiKeys: createApiKeyService({ store }),
    tenants: createTenantService({ store, defaultPlan: config.defaultPlan }),
    limits: { pageSizeLimitBytes: 5 * 1024 * 1024, maxPageLimit: 20000, fileTypes: [] },
    embedderStatus: () => ({ state: "unavailable", detail: "The embedder is not started in this build." }),
    async extraHealthChecks() {
      return {
        queue: { status: "down", detail: "no queue yet" },
        index: { status: "down", detail: "no index yet" },
      };
    },
    async userOut() {
      return null;
    },
    async close() {
      await store.close();
    },
  };
}
