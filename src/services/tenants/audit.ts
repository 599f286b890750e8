// The audit trail: key created or revoked, plan changed, workspace deleted, sign-in succeeded or
// failed, password reset, a crawl started against a host the tenant never crawled, and deletions
// of collections, data sources and documents. Recording never fails the action it records: a
// write error is logged and the action goes on.
import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { AuditRow } from "../../store/audit-types.js";
import { sortableId } from "../../store/ids.js";
import { tenantOf, type Principal } from "../auth/auth.js";
import { badRequest } from "../errors.js";

export type AuditAction =
  | "api_key.created"
  | "api_key.revoked"
  | "tenant.plan_changed"
  | "workspace.deleted"
  | "login.succeeded"
  | "login.failed"
  | "password.reset"
  | "crawl.new_host"
  | "collection.deleted"
  | "data_source.deleted"
  | "document.deleted";

/** Who acted: a principal, or a named actor without one (a sign-in, a reset link). */
export type Actor = Principal | { actor_type: string; actor_id: string | null };

export interface AuditEvent {
  tenantId: string;
  actor: Actor;
  action: AuditAction;
  target?: { type: string; id: string };
  detail?: Record<string, unknown>;
  address?: string | null;
}

export interface AuditEntryOut {
  id: string;
  at: string;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  detail: Record<string, unknown>;
  address: string | null;
}

function actorFields(a: Actor): { actor_type: string; actor_id: string | null } {
  if ("actor_type" in a) return a;
  if (a.authMethod === "session") return { actor_type: "session", actor_id: a.userId };
  if (a.key) return { actor_type: "api_key", actor_id: a.key.id };
  return { actor_type: "platform", actor_id: null };
}

const cursorOf = (r: AuditRow) => Buffer.from(`${r.at}|${r.id}`).toString("base64url");

function parseCursor(cursor: string): { at: string; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (!at || !id || Number.isNaN(Date.parse(at))) throw badRequest("The cursor is not valid. Use the link from the Link header of the previous page.");
  return { at, id };
}

export function createAuditService(deps: { store: Store; log: Logger; retentionDays: number; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    /** Records an event; never throws. */
    async record(e: AuditEvent): Promise<void> {
      const row: AuditRow = {
        // same-millisecond entries keep their order: the log lists by (at, id)
        id: sortableId("aud"),
        tenant_id: e.tenantId,
        at: now().toISOString(),
        ...actorFields(e.actor),
        action: e.action,
        target_type: e.target?.type ?? null,
        target_id: e.target?.id ?? null,
        detail: e.detail ?? {},
        address: e.address ?? null,
      };
      try {
        await deps.store.audit.record(row);
      } catch (err) {
        deps.log.error({ err, audit: row }, "could not write the audit log entry");
      }
    },

    /** A page of the caller's tenant's trail, newest first, and the cursor of the next page. */
    async list(p: Principal, opts: { limit: number; cursor?: string }): Promise<{ entries: AuditEntryOut[]; next: string | null }> {
      const tenant = tenantOf(p);
      const rows = await deps.store.audit.list(tenant.id, { limit: opts.limit + 1, before: opts.cursor ? parseCursor(opts.cursor) : undefined });
      const page = rows.slice(0, opts.limit);
      const entries = page.map(({ tenant_id: _t, ...rest }) => rest);
      return { entries, next: rows.length > opts.limit ? cursorOf(page[page.length - 1]) : null };
    },

    /** Removes entries older than the retention; returns how many. */
    async prune(): Promise<number> {
      const before = new Date(now().getTime() - deps.retentionDays * 86_400_000).toISOString();
      return deps.store.audit.prune(before);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
