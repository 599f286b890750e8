import { randomBytes } from "node:crypto";
import type { ApiKeyRow, Scope, Store } from "../../store/types.js";
import { newId } from "../../store/ids.js";
import { sha256Hex, tenantOf, type Principal } from "./auth.js";
import { forbidden, notFound } from "../errors.js";
import { highestScope, level } from "./scopes.js";
import type { AuditService } from "../tenants/audit.js";
import type { KeyCache } from "./key-cache.js";

export interface ApiKeyOut {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  status: "active" | "revoked" | "expired";
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export type ApiKeyCreated = ApiKeyOut & { key: string };

const PREFIX_LEN = 11;

export function keyOut(k: ApiKeyRow, now = new Date()): ApiKeyOut {
  const status = k.revoked_at ? "revoked" : k.expires_at && Date.parse(k.expires_at) <= now.getTime() ? "expired" : "active";
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    status,
    created_at: k.created_at,
    expires_at: k.expires_at,
    revoked_at: k.revoked_at,
    last_used_at: k.last_used_at,
  };
}

/** A new secret and the row that stores only its hash. */
export function mintKey(tenantId: string, name: string, scopes: Scope[], expiresInDays: number | null, now = new Date()) {
  const secret = `qk_${randomBytes(32).toString("base64url")}`;
  const row: ApiKeyRow = {
    id: newId("key"),
    tenant_id: tenantId,
    name,
    prefix: secret.slice(0, PREFIX_LEN),
    hash: sha256Hex(secret),
    scopes,
    created_at: now.toISOString(),
    expires_at: expiresInDays ? new Date(now.getTime() + expiresInDays * 86_400_000).toISOString() : null,
    revoked_at: null,
    last_used_at: null,
  };
  return { secret, row };
}

export function createApiKeyService(deps: { store: Store; audit?: Pick<AuditService, "record">; keyCache?: Pick<KeyCache, "revoked"> }) {
  return {
    async list(p: Principal): Promise<ApiKeyOut[]> {
      const rows = await deps.store.apiKeys.list(tenantOf(p).id);
      return rows.map((r) => keyOut(r));
    },

    async create(p: Principal, body: { name: string; scopes: string[]; expires_in_days?: number | null }): Promise<ApiKeyCreated> {
      const tenant = tenantOf(p);
      const scopes = [...new Set(body.scopes)] as Scope[];
      const mine = highestScope(p.scopes);
      const tooHigh = scopes.filter((s) => level(s) > level(mine));
      if (tooHigh.length) {
        throw forbidden(`A key cannot grant more than its creator holds: you hold '${mine}', not '${tooHigh.join("', '")}'.`);
      }
      const { secret, row } = mintKey(tenant.id, body.name, scopes, body.expires_in_days ?? null);
      await deps.store.apiKeys.create(row);
      await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "api_key.created", target: { type: "api_key", id: row.id }, detail: { name: row.name, scopes, expires_at: row.expires_at } });
      return { ...keyOut(row), key: secret };
    },

    async revoke(p: Principal, keyId: string): Promise<void> {
      const tenant = tenantOf(p);
      const key = await deps.store.apiKeys.get(tenant.id, keyId);
      if (!key) throw notFound("API key", keyId);
      if (key.revoked_at) return;
      await deps.store.apiKeys.revoke(tenant.id, keyId, new Date().toISOString());
      await deps.keyCache?.revoked(key.hash); // every API process refuses it from now on
      await deps.audit?.record({ tenantId: tenant.id, actor: p, action: "api_key.revoked", target: { type: "api_key", id: keyId }, detail: { name: key.name, prefix: key.prefix } });
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
