// The audit trail over HTTP: what is recorded, who can read it, paging, and isolation.
import { describe, expect, it } from "vitest";
import { noModelEnv, PLATFORM_KEY, useServer } from "../kit/index.js";

const s = useServer({
    ...noModelEnv(),
    REQUIRE_EMAIL_VERIFICATION: "false" });

const actions = (entries: { action: string }[]) => entries.map((e) => e.action);

describe("GET /audit-log", () => {
  it("records a key's creation and revocation with who did it", async () => {
    const t = await s.tenant();
    const created = await s.call("POST", "/api-keys", { key: t.adminKey, json: { name: "ci", scopes: ["search"] } });
    expect(created.status).toBe(201);
    expect((await s.call("DELETE", `/api-keys/${created.body.id}`, { key: t.adminKey })).status).toBe(204);
    // revoking again changes nothing and records nothing
    expect((await s.call("DELETE", `/api-keys/${created.body.id}`, { key: t.adminKey })).status).toBe(204);

    const log = await s.call("GET", "/audit-log", { key: t.adminKey });
    expect(log.status).toBe(200);
    expect(actions(log.body)).toEqual(["api_key.revoked", "api_key.created"]);
    const [revoked, made] = log.body;
    expect(revoked).toMatchObject({ actor_type: "api_key", target_type: "api_key", target_id: created.body.id, detail: { name: "ci" } });
    expect(made.detail).toMatchObject({ name: "ci", scopes: ["search"] });
    expect(made.actor_id).toMatch(/^key_/);

    // a search key cannot read the trail; another tenant sees none of it
    const reader = await s.call("POST", "/api-keys", { key: t.adminKey, json: { name: "reader", scopes: ["search"] } });
    expect((await s.call("GET", "/audit-log", { key: reader.body.key })).status).toBe(403);
    const other = await s.tenant();
    expect((await s.call("GET", "/audit-log", { key: other.adminKey })).body).toEqual([]);
  });

  it("records plan changes, deletions, failed and successful sign-ins, and workspace deletion", async () => {
    const email = `audit-${Date.now()}@example.com`;
    const signup = await s.call("POST", "/auth/signup", { json: { email, password: "correct horse battery", workspace_name: "Audited" } });
    expect(signup.status).toBe(201);
    const tenantId = signup.body.tenant.id ?? signup.body.workspace?.id;
    const cookie = (signup.headers.get("set-cookie") ?? "").split(";")[0];
    expect((await s.call("POST", "/auth/login", { json: { email, password: "wrong password!!" } })).status).toBe(401);
    expect((await s.call("POST", "/auth/login", { json: { email, password: "correct horse battery" } })).status).toBe(200);
    expect((await s.call("PUT", `/tenants/${tenantId}/plan`, { key: PLATFORM_KEY, json: { plan: "pro" } })).status).toBe(200);
    const col = await s.call("POST", "/collections", { cookie, json: { name: "Temp" } });
    expect((await s.call("DELETE", `/collections/${col.body.id}`, { cookie })).status).toBe(204);

    const log = await s.call("GET", "/audit-log", { cookie });
    expect(actions(log.body)).toEqual(["collection.deleted", "tenant.plan_changed", "login.succeeded", "login.failed"]);
    expect(log.body[1].detail).toEqual({ from: "free", to: "pro" });
    expect(log.body[3]).toMatchObject({ actor_type: "anonymous", address: "127.0.0.1" });
    expect(log.body[0].actor_type).toBe("session");

    // the record of the workspace's deletion outlives the workspace (until retention prunes it)
    const slug = signup.body.tenant.slug ?? signup.body.workspace?.slug;
    expect((await s.call("DELETE", "/auth/workspace", { cookie, json: { confirm: slug } })).status).toBe(204);
    const kept = await s.rt.store.audit.list(tenantId, { limit: 10 });
    expect(kept[0]).toMatchObject({ action: "workspace.deleted", target_id: tenantId, detail: { slug } });
  });

  it("pages newest first with a Link header to the next page", async () => {
    const t = await s.tenant();
    for (let i = 0; i < 5; i++) await s.call("POST", "/api-keys", { key: t.adminKey, json: { name: `k${i}`, scopes: ["search"] } });
    const seen: string[] = [];
    let next: string | null = "/audit-log?limit=2";
    let pages = 0;
    while (next) {
      const r = await s.call("GET", next, { key: t.adminKey });
      expect(r.status).toBe(200);
      expect(r.body.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.map((e: { detail: { name: string } }) => e.detail.name));
      next = /<([^>]+)>; rel="next"/.exec(r.headers.get("link") ?? "")?.[1] ?? null;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(["k4", "k3", "k2", "k1", "k0"]);
    expect((await s.call("GET", "/audit-log?cursor=not-a-cursor", { key: t.adminKey })).status).toBe(400);
  });
});
