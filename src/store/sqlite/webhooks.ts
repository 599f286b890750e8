// Webhook endpoints and deliveries in SQLite (see webhook-types.ts).
import type { DB } from "./db.js";
import { parseJson } from "./content/json.js";
import {
  DELIVERY_COLUMNS, DELIVERY_PATCH_COLUMNS, ENDPOINT_COLUMNS, deliveryValues, endpointValues,
  type WebhookDeliveryRow, type WebhookEndpointRow, type WebhookStore,
} from "../webhook-types.js";

type RawEndpoint = Omit<WebhookEndpointRow, "events"> & { events: string };
const toEndpoint = (r: RawEndpoint): WebhookEndpointRow => ({ ...r, events: parseJson<string[]>(r.events, []) });
const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export function sqliteWebhooks(db: DB): WebhookStore {
  return { ...endpointMethods(db), ...deliveryMethods(db) };
}

type EndpointMethods = Pick<WebhookStore, "createEndpoint" | "listEndpoints" | "getEndpoint" | "deleteEndpoint" | "enabledEndpoints" | "endpointById" | "setEndpointHealth">;

function endpointMethods(db: DB): EndpointMethods {
  const create = db.transaction((row: WebhookEndpointRow, limit: number) => {
    const n = (db.prepare("SELECT count(*) AS n FROM webhook_endpoints WHERE tenant_id = ?").get(row.tenant_id) as { n: number }).n;
    if (n >= limit) return false;
    db.prepare(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES (${marks(12)})`).run(...endpointValues(row));
    return true;
  });
  const all = (sql: string, ...args: unknown[]) => (db.prepare(sql).all(...args) as RawEndpoint[]).map(toEndpoint);
  const one = (sql: string, ...args: unknown[]) => {
    const r = db.prepare(sql).get(...args) as RawEndpoint | undefined;
    return r ? toEndpoint(r) : null;
  };
  return {
    async createEndpoint(row, limit) {
      return create(row, limit);
    },
    async listEndpoints(tenantId) {
      return all("SELECT * FROM webhook_endpoints WHERE tenant_id = ? ORDER BY created_at, id", tenantId);
    },
    async getEndpoint(tenantId, id) {
      return one("SELECT * FROM webhook_endpoints WHERE tenant_id = ? AND id = ?", tenantId, id);
    },
    async deleteEndpoint(tenantId, id) {
      return db.prepare("DELETE FROM webhook_endpoints WHERE tenant_id = ? AND id = ?").run(tenantId, id).changes > 0;
    },
    async enabledEndpoints(tenantId) {
      return all("SELECT * FROM webhook_endpoints WHERE tenant_id = ? AND status = 'enabled'", tenantId);
    },
    async endpointById(id) {
      return one("SELECT * FROM webhook_endpoints WHERE id = ?", id);
    },
    async setEndpointHealth(id, h) {
      db.prepare("UPDATE webhook_endpoints SET status = ?, disabled_reason = ?, failure_streak = ?, updated_at = ? WHERE id = ?").run(
        h.status, h.disabled_reason, h.failure_streak, new Date().toISOString(), id,
      );
    },
  };
}

type DeliveryMethods = Pick<WebhookStore, "createDelivery" | "getDelivery" | "deliveryById" | "updateDelivery" | "listDeliveries" | "dueDeliveries">;

function deliveryMethods(db: DB): DeliveryMethods {
  return {
    async createDelivery(row) {
      db.prepare(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES (${marks(12)})`).run(...deliveryValues(row));
    },
    async getDelivery(tenantId, id) {
      return (db.prepare("SELECT * FROM webhook_deliveries WHERE tenant_id = ? AND id = ?").get(tenantId, id) as WebhookDeliveryRow | undefined) ?? null;
    },
    async deliveryById(id) {
      return (db.prepare("SELECT * FROM webhook_deliveries WHERE id = ?").get(id) as WebhookDeliveryRow | undefined) ?? null;
    },
    async updateDelivery(id, patch) {
      const cols = DELIVERY_PATCH_COLUMNS.filter((c) => patch[c] !== undefined);
      const sets = [...cols.map((c) => `${c} = ?`), "updated_at = ?"].join(", ");
      db.prepare(`UPDATE webhook_deliveries SET ${sets} WHERE id = ?`).run(...cols.map((c) => patch[c]), new Date().toISOString(), id);
    },
    async listDeliveries(tenantId, endpointId, limit) {
      return db
        .prepare("SELECT * FROM webhook_deliveries WHERE tenant_id = ? AND endpoint_id = ? ORDER BY created_at DESC, id DESC LIMIT ?")
        .all(tenantId, endpointId, limit) as WebhookDeliveryRow[];
    },
    async dueDeliveries(before, limit) {
      return db
        .prepare("SELECT id, tenant_id, attempts FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?")
        .all(before, limit) as { id: string; tenant_id: string; attempts: number }[];
    },
  };
}
