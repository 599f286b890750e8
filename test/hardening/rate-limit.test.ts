// Rate limits per API key and per address, with the standard headers, and security headers.
import { describe, expect, it } from "vitest";
import { noModelEnv, useServer } from "../kit/index.js";

const s = useServer({
    ...noModelEnv(),
    RATE_LIMIT_PER_MINUTE: "30",
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: "5",
  });

describe("per API key", () => {
  it("answers the 31st request of a key limited to 30 a minute with 429, Retry-After and a detail", async () => {
    const { adminKey } = await s.tenant();
    for (let i = 1; i <= 30; i++) {
      const r = await s.call("GET", "/collections", { key: adminKey });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-limit")).toBe("30");
      expect(r.headers.get("ratelimit-remaining")).toBe(String(30 - i));
    }
    const over = await s.call("GET", "/collections", { key: adminKey });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.body.detail).toMatch(/^Rate limit reached: 30 requests a minute for this API key or session\. Retry after \d+ s/);
  });

  it("counts each key on its own, and never limits health probes", async () => {
    const other = await s.tenant();
    const r = await s.call("GET", "/collections", { key: other.adminKey });
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-remaining")).toBe("29");
    for (let i = 0; i < 40; i++) expect((await s.call("GET", "/health")).status).toBe(200);
  });
});

describe("per address without credentials", () => {
  it("limits login attempts from one address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await s.call("POST", "/auth/login", { json: { email: `nobody${i}@example.com`, password: "wrong-password-1" } });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 5).every((st) => st !== 429)).toBe(true);
    expect(statuses[5]).toBe(429);
  });
});

describe("security headers", () => {
  it("sets a content security policy and the usual hardening headers on API answers", async () => {
    const r = await s.call("GET", "/health");
    const csp = r.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    expect(r.headers.get("x-powered-by")).toBeNull();
  });
});
