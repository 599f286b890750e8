// Tenants over HTTP (inject): POST/GET /tenants (platform scope), TenantCreate validation exactly as
// the contract states it, slug derivation and uniqueness, and the first admin key.
import { describe, expect, it } from "vitest";
import { ISO_DATE_TIME, LIGHT_ENV, PLATFORM_KEY, expectDetail, issueAt, makeKey, useServer } from "../kit/index.js";

const s = useServer(LIGHT_ENV);
const P = PLATFORM_KEY;

const create = (json: unknown, key: string | null = P) => s.call("POST", "/tenants", { key, json });

describe("POST /tenants", () => {
  it("creates a tenant with its first admin key, whose secret works", async () => {
    const r = await create({ name: "Acme Docs", slug: "acme", admin_key_name: "Bootstrap" });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(["admin_key", "tenant"]);
    const { tenant, admin_key } = r.body;
    expect(tenant).toMatchObject({ name: "Acme Docs", slug: "acme" });
    expect(tenant.id).toBeTypeOf("string");
    expect(tenant.created_at).toMatch(ISO_DATE_TIME);
    expect(admin_key).toMatchObject({ name: "Bootstrap", scopes: ["admin"], status: "active", expires_at: null, revoked_at: null });
    expect(admin_key.key).toBeTypeOf("string");
    expect(admin_key.key.startsWith(admin_key.prefix)).toBe(true);

    const me = await s.call("GET", "/me", { key: admin_key.key });
    expect(me.status).toBe(200);
    expect(me.body.tenant).toEqual(tenant);
    expect(me.body.scopes).toEqual(["admin"]);
    // the admin key can mint keys in its tenant
    await makeKey(s, admin_key.key, ["search"]);
  });

  it("names the admin key 'Admin key' by default", async () => {
    const r = await create({ name: "Default Key Name Co" });
    expect(r.status).toBe(201);
    expect(r.body.admin_key.name).toBe("Admin key");
  });

  it("derives the slug from the name when absent or null", async () => {
    const a = await create({ name: "  Ünïcode Café & Co. (EU)  " });
    expect(a.status).toBe(201);
    expect(a.body.tenant.slug).toBe("unicode-cafe-co-eu");
    const b = await create({ name: "Null Slug Workspace", slug: null });
    expect(b.status).toBe(201);
    expect(b.body.tenant.slug).toBe("null-slug-workspace");
    for (const slug of [a.body.tenant.slug, b.body.tenant.slug]) {
      expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(slug.length).toBeLessThanOrEqual(80);
    }
  });

  it("makes a derived slug unique instead of failing", async () => {
    const first = await create({ name: "Same Name" });
    const second = await create({ name: "Same Name" });
    const third = await create({ name: "same  name!" });
    expect([first.status, second.status, third.status]).toEqual([201, 201, 201]);
    const slugs = [first, second, third].map((r) => r.body.tenant.slug);
    expect(slugs[0]).toBe("same-name");
    expect(new Set(slugs).size).toBe(3);
    for (const slug of slugs) expect(slug).toMatch(/^same-name(-\d+)?$/);
  });

  it("makes derived slugs unique under concurrent creation too (never 409 for a slug nobody chose)", async () => {
    const rs = await Promise.all(Array.from({ length: 8 }, () => create({ name: "Race Condition Ltd" })));
    expect(rs.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(rs.map((r) => r.body.tenant.slug)).size).toBe(8);
    // and exactly one of several concurrent claims of the same explicit slug wins
    const claims = await Promise.all(Array.from({ length: 5 }, (_, i) => create({ name: `Claim ${i}`, slug: "contested" })));
    expect(claims.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it("derives a valid slug of at most 80 characters from a long or symbol-only name", async () => {
    const long = await create({ name: `${"word ".repeat(39)}end` });
    expect(long.status).toBe(201);
    expect(long.body.tenant.slug.length).toBeLessThanOrEqual(80);
    expect(long.body.tenant.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    const again = await create({ name: `${"word ".repeat(39)}end` });
    expect(again.status).toBe(201);
    expect(again.body.tenant.slug.length).toBeLessThanOrEqual(80);
    expect(again.body.tenant.slug).not.toBe(long.body.tenant.slug);
    const symbols = await create({ name: "🎉 !!! 🎉" });
    expect(symbols.status).toBe(201);
    expect(symbols.body.tenant.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it("answers 409 with a detail for an explicit slug that is taken", async () => {
    expect((await create({ name: "Taken One", slug: "taken" })).status).toBe(201);
    const r = await create({ name: "Taken Two", slug: "taken" });
    expectDetail(r, 409, "taken");
    // a derived slug equal to the taken one is made unique instead
    const derived = await create({ name: "Taken" });
    expect(derived.status).toBe(201);
    expect(derived.body.tenant.slug).not.toBe("taken");
  });

  describe("TenantCreate validation (422 naming the field)", () => {
    const cases: [string, unknown, (string | number)[], string][] = [
      ["name missing", {}, ["body", "name"], "missing"],
      ["name empty", { name: "" }, ["body", "name"], "string_too_short"],
      ["name of 201 characters", { name: "n".repeat(201) }, ["body", "name"], "string_too_long"],
      ["name not a string", { name: 42 }, ["body", "name"], "string_type"],
      ["name null", { name: null }, ["body", "name"], "string_type"],
      ["slug of 81 characters", { name: "x", slug: "a".repeat(81) }, ["body", "slug"], "string_too_long"],
      ["slug with capitals", { name: "x", slug: "Acme" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug with underscore", { name: "x", slug: "acme_docs" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug with a leading hyphen", { name: "x", slug: "-acme" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug with a trailing hyphen", { name: "x", slug: "acme-" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug with a double hyphen", { name: "x", slug: "acme--docs" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug empty", { name: "x", slug: "" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug with a space", { name: "x", slug: "acme docs" }, ["body", "slug"], "string_pattern_mismatch"],
      ["slug not a string", { name: "x", slug: 7 }, ["body", "slug"], "string_type"],
      ["admin_key_name empty", { name: "x", admin_key_name: "" }, ["body", "admin_key_name"], "string_too_short"],
      ["admin_key_name of 121 characters", { name: "x", admin_key_name: "k".repeat(121) }, ["body", "admin_key_name"], "string_too_long"],
      ["admin_key_name null", { name: "x", admin_key_name: null }, ["body", "admin_key_name"], "string_type"],
      ["an unknown field", { name: "x", plan: "enterprise" }, ["body", "plan"], "extra_forbidden"],
    ];
    it.each(cases)("%s", async (_label, body, loc, type) => {
      const r = await create(body);
      const issue = issueAt(r, ...loc);
      expect(issue.type).toBe(type);
    });

    it("accepts the boundaries: name of 1 and 200, slug of 80, admin_key_name of 1 and 120", async () => {
      for (const body of [
        { name: "a" },
        { name: "b".repeat(200) },
        { name: "x", slug: `${"s".repeat(78)}-1` },
        { name: "x", admin_key_name: "k" },
        { name: "x", admin_key_name: "k".repeat(120) },
      ]) {
        const r = await create(body);
        expect(r.status, JSON.stringify(r.body)).toBe(201);
      }
    });

    it("reports every bad field at once and creates nothing", async () => {
      const before = (await s.call("GET", "/tenants", { key: P })).body.length;
      const r = await create({ name: "", slug: "Bad Slug", admin_key_name: "", extra: 1 });
      const locs = (r.body.detail as { loc: string[] }[]).map((i) => i.loc.join("."));
      expect(r.status).toBe(422);
      expect(locs).toEqual(expect.arrayContaining(["body.name", "body.slug", "body.admin_key_name", "body.extra"]));
      expect((await s.call("GET", "/tenants", { key: P })).body.length).toBe(before);
    });
  });
});

describe("GET /tenants", () => {
  it("lists every tenant as Tenant records for the platform key", async () => {
    const made = await create({ name: "Listed Tenant", slug: "listed-tenant" });
    const r = await s.call("GET", "/tenants", { key: P });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    const hit = r.body.find((t: { id: string }) => t.id === made.body.tenant.id);
    expect(hit).toEqual(made.body.tenant);
    for (const t of r.body) {
      expect(Object.keys(t).sort()).toEqual(["created_at", "id", "name", "slug"]);
      expect(JSON.stringify(t)).not.toContain("qk_");
    }
  });
});

describe("tenant routes need the platform scope", () => {
  it("answers 401 without credentials and 403 naming 'platform' for a tenant's admin key", async () => {
    const admin = (await create({ name: "Not An Operator" })).body.admin_key.key;
    expectDetail(await s.call("GET", "/tenants"), 401);
    expectDetail(await create({ name: "x" }, null), 401);
    expectDetail(await s.call("GET", "/tenants", { key: admin }), 403, "platform");
    expectDetail(await create({ name: "Sneaky" }, admin), 403, "platform");
    expectDetail(await create({ name: "x" }, "not-the-platform-key-000000"), 401);
  });

  it("checks the scope before the body, so a caller without it learns nothing from validation", async () => {
    const admin = (await create({ name: "Validation Leak" })).body.admin_key.key;
    expectDetail(await create({ name: "" }, admin), 403, "platform");
    expectDetail(await create({ name: "" }, null), 401);
  });
});
