// Webhook endpoints and deliveries on PostgreSQL (see sqlite/webhooks.ts and webhook-types.ts).
import { transaction, type Pool } from "./db.js";
import { parseJson } from "./rows.js";
import {
  DELIVERY_COLUMNS, DELIVERY_PATCH_COLUMNS, ENDPOINT_COLUMNS, deliveryValues, endpointValues,
  type WebhookDeliveryRow, type WebhookEndpointRow, type WebhookStore,
} from "../webhook-types.js";

type RawEndpoint = Omit<WebhookEndpointRow, "events"> & { events: string };
const toEndpoint = (r: RawEndpoint): WebhookEndpointRow => ({ ...r, events: parseJson<string[]>(r.events, []) });
const params = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(", ");

export function pgWebhooks(pool: Pool): WebhookStore {
  return { ...endpointMethods(pool), ...deliveryMethods(pool) };
}

type EndpointMethods = Pick<WebhookStore, "createEndpoint" | "listEndpoints" | "getEndpoint" | "deleteEndpoint" | "enabledEndpoints" | "endpointById" | "setEndpointHealth">;

function endpointMethods(pool: Pool): EndpointMethods {
  const all = async (sql: string, args: unknown[]) => (await pool.query<RawEndpoint>(sql, args)).rows.map(toEndpoint);
  const one = async (sql: string, args: unknown[]) => (await all(sql, args))[0] ?? null;
  return {
    async createEndpoint(row, limit) {
      return transaction(pool, async (c) => {
        // the tenant row serialises concurrent creations against the limit
        await c.query("SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE", [row.tenant_id]);
        const n = await c.query<{ n: string }>("SELECT count(*) AS n FROM webhook_endpoints WHERE tenant_id = $1", [row.tenant_id]);
        if (Number(n.rows[0]?.n ?? 0) >= limit) return false;
        await c.query(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES (${params(12)})`, endpointValues(row));
        return true;
      });
    },
    async listEndpoints(tenantId) {
      return all("SELECT * FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY created_at, id", [tenantId]);
    },
    async getEndpoint(tenantId, id) {
      return one("SELECT * FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    },
    async deleteEndpoint(tenantId, id) {
      const r = await pool.query("DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
      return (r.rowCount ?? 0) > 0;
    },
    async enabledEndpoints(tenantId) {
      return all("SELECT * FROM webhook_endpoints WHERE tenant_id = $1 AND status = 'enabled'", [tenantId]);
    },
    async endpointById(id) {
      return one("SELECT * FROM webhook_endpoints WHERE id = $1", [id]);
    },
    async setEndpointHealth(id, h) {
      await pool.query("UPDATE webhook_endpoints SET status = $2, disabled_reason = $3, failure_streak = $4, updated_at = $5 WHERE id = $1", [
        id, h.status, h.disabled_reason, h.failure_streak, new Date().toISOString(),
      ]);
    },
  };
}

type DeliveryMethods = Pick<WebhookStore, "createDelivery" | "getDelivery" | "deliveryById" | "updateDelivery" | "listDeliveries" | "dueDeliveries">;

function deliveryMethods(pool: Pool): DeliveryMethods {
  const one = async (sql: string, args: unknown[]) => (await pool.query<WebhookDeliveryRow>(sql, args)).rows[0] ?? null;
  return {
    async createDelivery(row) {
      await pool.query(`INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}) VALUES (${params(12)})`, deliveryValues(row));
    },
    async getDelivery(tenantId, id) {
      return one("SELECT * FROM webhook_deliveries WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    },
    async deliveryById(id) {
      return one("SELECT * FROM webhook_deliveries WHERE id = $1", [id]);
    },
    async updateDelivery(id, patch) {
      const cols = DELIVERY_PATCH_COLUMNS.filter((c) => patch[c] !== undefined);
      const sets = [...cols.map((c, i) => `${c} = $${i + 2}`), `updated_at = $${cols.length + 2}`].join(", ");
      await pool.query(`UPDATE webhook_deliveries SET ${sets} WHERE id = $1`, [id, ...cols.map((c) => patch[c]), new Date().toISOString()]);
    },
    async listDeliveries(tenantId, endpointId, limit) {
      const r = await pool.query<WebhookDeliveryRow>(
        "SELECT * FROM webhook_deliveries WHERE tenant_id = $1 AND endpoint_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3",
        [tenantId, endpointId, limit],
      );
      return r.rows;
    },
    async dueDeliveries(before, limit) {
      const r = await pool.query<{ id: string; tenant_id: string; attempts: number }>(
        "SELECT id, tenant_id, attempts FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2",
        [before, limit],
      );
      return r.rows;
    },
  };
}
