// Accounts in SQLite, one factory per concern (users, sessions, emailed tokens, the throttle's
// attempt log); each prepares its own statements. Signup and tenant deletion span several
// tables, so they live here with the composition.
import type { DB } from "./db.js";
import { isUniqueViolation } from "./db.js";
import { UniqueViolation, type TenantRow } from "../types.js";
import type { AccountStore, AccountTokenRow, SessionRow, UserRow } from "../account-types.js";
import { removeChunkEntries } from "./content/index-entries.js";
import { INSERT_USER, userMethods } from "./account-users.js";
import { INSERT_SESSION, sessionMethods } from "./account-sessions.js";
import { INSERT_TOKEN, tokenMethods } from "./account-tokens.js";
import { throttleMethods } from "./auth-attempts.js";

export function sqliteAccounts(db: DB): AccountStore {
  return {
    ...signupMethods(db),
    ...userMethods(db),
    ...sessionMethods(db),
    ...tokenMethods(db),
    ...throttleMethods(db),
    ...tenantDeletion(db),
  };
}

function signupMethods(db: DB): Pick<AccountStore, "createSignup"> {
  const insertTenant = db.prepare(
    "INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES (@id, @name, @slug, @plan, @verified, @created_at)",
  );
  const insertUser = db.prepare(INSERT_USER);
  const insertSession = db.prepare(INSERT_SESSION);
  const insertToken = db.prepare(INSERT_TOKEN);
  const createSignup = db.transaction((x: { tenant: TenantRow; user: UserRow; session: SessionRow; token: AccountTokenRow | null }) => {
    insertTenant.run({ ...x.tenant, verified: x.tenant.verified ? 1 : 0 });
    insertUser.run(x.user);
    insertSession.run(x.session);
    if (x.token) insertToken.run(x.token);
  });
  return {
    async createSignup(x) {
      try {
        createSignup(x);
      } catch (err) {
        throw isUniqueViolation(err) ? signupConflict(err) : err;
      }
    },
  };
}

/** Names the field a signup collided on, from the constraint SQLite reports. */
function signupConflict(err: unknown): UniqueViolation {
  const msg = err instanceof Error ? err.message : "";
  return new UniqueViolation(msg.includes("users.email_key") ? "email" : msg.includes("tenants.slug") ? "slug" : "unknown");
}

function tenantDeletion(db: DB): Pick<AccountStore, "deleteTenant"> {
  // Vector entries cannot cascade (virtual tables): they go first, in the same transaction; every
  // other row of the tenant (lexical terms included) follows the tenant row through ON DELETE CASCADE.
  const deleteTenant = db.transaction((tenantId: string): boolean => {
    removeChunkEntries(db, "c.tenant_id = ?", [tenantId]);
    return db.prepare("DELETE FROM tenants WHERE id = ?").run(tenantId).changes > 0;
  });
  return {
    async deleteTenant(tenantId) {
      return deleteTenant(tenantId);
    },
  };
}
