// API keys over HTTP (inject): creation rules, the secret shown once and stored only as SHA-256,
// prefix, scopes, expiry, revocation on the very next request, last_used_at, and tenancy.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ISO_DATE_TIME, LIGHT_ENV, PLATFORM_KEY, expectDetail, issueAt, makeKey, useServer } from "../kit/index.js";
import { storeSql } from "../helpers/store-sql.js";
import { SHORT_TTL_MS } from "../../src/services/auth/key-cache.js";

const s = useServer(LIGHT_ENV);
let admin: string;
let tenantId: string;

beforeAll(async () => {
  const t = await s.tenant("Key Owner");
  admin = t.adminKey;
  tenantId = t.id;
});

const API_KEY_OUT_FIELDS = ["created_at", "expires_at", "id", "last_used_at", "name", "prefix", "revoked_at", "scopes", "status"];
const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");
const list = async (key = admin) => {
  const r = await s.call("GET", "/api-keys", { key });
  expect(r.status).toBe(200);
  return r.body as Record<string, any>[];
};

describe("POST /api-keys", () => {
  it("returns ApiKeyCreated with a 32-byte secret, once", async () => {
    const r = await s.call("POST", "/api-keys", { key: admin, json: { name: "Search widget", scopes: ["search"] } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([...API_KEY_OUT_FIELDS, "key"].sort());
    expect(r.body).toMatchObject({ name: "Search widget", scopes: ["search"], status: "active", expires_at: null, revoked_at: null, last_used_at: null });
    expect(r.body.created_at).toMatch(ISO_DATE_TIME);
    const secret: string = r.body.key;
    const m = /^qk_([A-Za-z0-9_-]+)$/.exec(secret);
    expect(m).not.toBeNull();
    expect(Buffer.from(m![1], "base64url").length).toBe(32);

    // the prefix identifies the key in lists and is a proper prefix of the secret
    expect(secret.startsWith(r.body.prefix)).toBe(true);
    expect(r.body.prefix.length).toBeGreaterThanOrEqual(6);
    expect(r.body.prefix.length).toBeLessThan(secret.length / 2);

    // never shown again
    const listed = (await list()).find((k) => k.id === r.body.id)!;
    expect(listed).toBeDefined();
    expect(Object.keys(listed).sort()).toEqual(API_KEY_OUT_FIELDS);
    expect(listed.prefix).toBe(r.body.prefix);
    expect(JSON.stringify(await list())).not.toContain(secret);
    expect(JSON.stringify(await list())).not.toContain(m![1].slice(10));
    expect(JSON.stringify((await s.call("GET", "/me", { key: secret })).body)).not.toContain(m![1].slice(10));
  });

  it("stores only the SHA-256 of the secret: no plaintext in any table or in the database files", async () => {
    const { key: secret, id } = await makeKey(s, admin, ["ingest"]);
    const db = storeSql(s.rt.store);
    const row = (await db.get("SELECT * FROM api_keys WHERE id = ?", id))!;
    expect(row.hash).toBe(sha256(secret));
    const body = secret.slice(3);
    const tables = (
      await db.all<{ name: string }>(
        s.rt.store.kind === "sqlite" ? "SELECT name FROM sqlite_master WHERE type = 'table'" : "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'",
      )
    ).map((t) => t.name);
    expect(tables).toContain("api_keys");
    for (const table of tables) {
      let rows: Record<string, unknown>[];
      try {
        rows = await db.all(`SELECT * FROM "${table}"`);
      } catch {
        continue; // virtual tables of optional extensions
      }
      for (const r of rows) {
        for (const v of Object.values(r)) {
          if (typeof v === "string") expect(v.includes(body), `plaintext secret in ${table}`).toBe(false);
        }
      }
    }
    for (const f of ["quarry.db", "quarry.db-wal"]) {
      const file = path.join(s.dataDir, f);
      if (!fs.existsSync(file)) continue;
      expect(fs.readFileSync(file).includes(Buffer.from(secret.slice(3, 30))), `plaintext secret in ${f}`).toBe(false);
    }
  });

  it("gives each key a different secret and prefix", async () => {
    const keys = await Promise.all([1, 2, 3, 4].map(() => makeKey(s, admin, ["search"])));
    expect(new Set(keys.map((k) => k.key)).size).toBe(4);
    expect(new Set(keys.map((k) => k.body.prefix)).size).toBe(4);
  });

  it("accepts each scope and up to four items, and removes duplicates", async () => {
    for (const scopes of [["search"], ["ingest"], ["admin"], ["search", "ingest"], ["search", "ingest", "admin", "admin"]]) {
      const r = await s.call("POST", "/api-keys", { key: admin, json: { name: "scoped", scopes } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.scopes).toEqual([...new Set(scopes)]);
      const me = await s.call("GET", "/me", { key: r.body.key });
      expect(me.body.scopes).toEqual([...new Set(scopes)]);
    }
  });

  describe("ApiKeyCreate validation (422 naming the field)", () => {
    const cases: [string, unknown, (string | number)[], string][] = [
      ["platform scope", { name: "p", scopes: ["platform"] }, ["body", "scopes", 0], "enum"],
      ["unknown scope", { name: "p", scopes: ["search", "read"] }, ["body", "scopes", 1], "enum"],
      ["zero scopes", { name: "p", scopes: [] }, ["body", "scopes"], "too_short"],
      ["five scopes", { name: "p", scopes: ["search", "search", "ingest", "ingest", "admin"] }, ["body", "scopes"], "too_long"],
      ["scopes missing", { name: "p" }, ["body", "scopes"], "missing"],
      ["scopes a string", { name: "p", scopes: "search" }, ["body", "scopes"], "list_type"],
      ["scope not a string", { name: "p", scopes: [1] }, ["body", "scopes", 0], "string_type"],
      ["name missing", { scopes: ["search"] }, ["body", "name"], "missing"],
      ["name empty", { name: "", scopes: ["search"] }, ["body", "name"], "string_too_short"],
      ["name of 121 characters", { name: "n".repeat(121), scopes: ["search"] }, ["body", "name"], "string_too_long"],
      ["expires_in_days 0", { name: "e", scopes: ["search"], expires_in_days: 0 }, ["body", "expires_in_days"], "greater_than_equal"],
      ["expires_in_days -5", { name: "e", scopes: ["search"], expires_in_days: -5 }, ["body", "expires_in_days"], "greater_than_equal"],
      ["expires_in_days 3651", { name: "e", scopes: ["search"], expires_in_days: 3651 }, ["body", "expires_in_days"], "less_than_equal"],
      ["expires_in_days 1.5", { name: "e", scopes: ["search"], expires_in_days: 1.5 }, ["body", "expires_in_days"], "int_type"],
      ["expires_in_days as text", { name: "e", scopes: ["search"], expires_in_days: "30" }, ["body", "expires_in_days"], "int_type"],
      ["an unknown field", { name: "e", scopes: ["search"], tenant_id: "other" }, ["body", "tenant_id"], "extra_forbidden"],
    ];
    it.each(cases)("%s", async (_label, body, loc, type) => {
      const before = (await list()).length;
      const r = await s.call("POST", "/api-keys", { key: admin, json: body });
      expect(issueAt(r, ...loc).type).toBe(type);
      expect((await list()).length).toBe(before);
    });
  });

  it("sets expires_at from expires_in_days (1 and 3650 accepted; null means never)", async () => {
    for (const days of [1, 30, 3650]) {
      const t0 = Date.now();
      const r = await s.call("POST", "/api-keys", { key: admin, json: { name: `exp ${days}`, scopes: ["search"], expires_in_days: days } });
      expect(r.status).toBe(201);
      expect(r.body.expires_at).toMatch(ISO_DATE_TIME);
      const delta = Date.parse(r.body.expires_at) - t0;
      expect(Math.abs(delta - days * 86_400_000)).toBeLessThan(60_000);
      expect((await s.call("GET", "/me", { key: r.body.key })).status).toBe(200);
    }
    const never = await s.call("POST", "/api-keys", { key: admin, json: { name: "never", scopes: ["search"], expires_in_days: null } });
    expect(never.status).toBe(201);
    expect(never.body.expires_at).toBeNull();
  });

  it("lets a key grant at most what its creator holds", async () => {
    // admin may grant admin and below
    await makeKey(s, admin, ["admin"]);
    // holders of lower scopes cannot create keys at all: the route itself needs admin
    const ingest = await makeKey(s, admin, ["ingest"]);
    const r = await s.call("POST", "/api-keys", { key: ingest.key, json: { name: "escalate", scopes: ["admin"] } });
    expectDetail(r, 403, "admin");
    const search = await makeKey(s, admin, ["search"]);
    expectDetail(await s.call("POST", "/api-keys", { key: search.key, json: { name: "escalate", scopes: ["search"] } }), 403, "admin");
    // nobody can mint a platform key through the API
    const viaPlatform = await s.call("POST", "/api-keys", {
      key: PLATFORM_KEY,
      headers: { "x-tenant-id": tenantId },
      json: { name: "operator made", scopes: ["platform"] },
    });
    expect(issueAt(viaPlatform, "body", "scopes", 0).type).toBe("enum");
  });
});

describe("expiry", () => {
  it("answers 401 with a detail once expires_at has passed, and lists the key as expired", async () => {
    const k = await makeKey(s, admin, ["search"], { expires_in_days: 5 });
    expect((await s.call("GET", "/me", { key: k.key })).status).toBe(200);
    await storeSql(s.rt.store).run("UPDATE api_keys SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), k.id);
    // the row was changed under the server, as time passing would: its key cache (services/auth/
    // key-cache.ts) may answer from the old row for SHORT_TTL_MS; a real expiry is read off the
    // cached row's own expires_at
    await new Promise((r) => setTimeout(r, SHORT_TTL_MS + 50));
    expectDetail(await s.call("GET", "/me", { key: k.key }), 401, /expired/i);
    const listed = (await list()).find((x) => x.id === k.id)!;
    expect(listed.status).toBe("expired");
  });
});

describe("DELETE /api-keys/{key_id}", () => {
  it("revokes: 204 with no body, then 401 on the very next request", async () => {
    const k = await makeKey(s, admin, ["ingest"]);
    expect((await s.call("GET", "/me", { key: k.key })).status).toBe(200);
    const del = await s.call("DELETE", `/api-keys/${k.id}`, { key: admin });
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expectDetail(await s.call("GET", "/me", { key: k.key }), 401, /revoked/i);
    expectDetail(await s.call("GET", "/capabilities", { key: k.key }), 401);
    const listed = (await list()).find((x) => x.id === k.id)!;
    expect(listed.status).toBe("revoked");
    expect(listed.revoked_at).toMatch(ISO_DATE_TIME);
  });

  it("lets an admin key revoke itself, effective at once", async () => {
    const self = await makeKey(s, admin, ["admin"]);
    expect((await s.call("DELETE", `/api-keys/${self.id}`, { key: self.key })).status).toBe(204);
    expectDetail(await s.call("GET", "/api-keys", { key: self.key }), 401);
  });

  it("answers 404 with a detail for an unknown id", async () => {
    expectDetail(await s.call("DELETE", "/api-keys/key_doesnotexist", { key: admin }), 404);
  });

  it("treats another tenant's key exactly like a missing one (404, same body modulo the id)", async () => {
    const other = await s.tenant("Other Tenant");
    const theirs = await makeKey(s, other.adminKey, ["search"]);
    const theirAdminId = (await list(other.adminKey)).find((k) => k.scopes.includes("admin"))!.id;

    const foreign = await s.call("DELETE", `/api-keys/${theirs.id}`, { key: admin });
    const missing = await s.call("DELETE", "/api-keys/key_00000000000000000000", { key: admin });
    expectDetail(foreign, 404);
    expect(missing.status).toBe(404);
    expect(foreign.body.detail.replace(theirs.id, "<id>")).toBe(missing.body.detail.replace("key_00000000000000000000", "<id>"));
    expect((await s.call("DELETE", `/api-keys/${theirAdminId}`, { key: admin })).status).toBe(404);

    // nothing happened to the other tenant's keys, and lists stay inside their tenant
    expect((await s.call("GET", "/me", { key: theirs.key })).status).toBe(200);
    expect((await s.call("GET", "/api-keys", { key: other.adminKey })).status).toBe(200);
    const mine = (await list()).map((k) => k.id);
    expect(mine).not.toContain(theirs.id);
    expect(mine).not.toContain(theirAdminId);
    const theirsListed = (await list(other.adminKey)).map((k) => k.id);
    expect(theirsListed).toContain(theirs.id);
    expect(theirsListed.some((id) => mine.includes(id))).toBe(false);
  });
});

describe("last_used_at", () => {
  it("is null until the key is used, then set to the time of use", async () => {
    const k = await makeKey(s, admin, ["search"]);
    expect((await list()).find((x) => x.id === k.id)!.last_used_at).toBeNull();
    const before = Date.now();
    expect((await s.call("GET", "/me", { key: k.key })).status).toBe(200);
    const used = (await list()).find((x) => x.id === k.id)!.last_used_at;
    expect(used).toMatch(ISO_DATE_TIME);
    expect(Date.parse(used)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(used)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("is not set by failed attempts with a revoked key", async () => {
    const k = await makeKey(s, admin, ["search"]);
    await s.call("DELETE", `/api-keys/${k.id}`, { key: admin });
    expect((await s.call("GET", "/me", { key: k.key })).status).toBe(401);
    expect((await list()).find((x) => x.id === k.id)!.last_used_at).toBeNull();
  });
});
