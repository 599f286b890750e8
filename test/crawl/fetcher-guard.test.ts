// The fetcher's address guard: every hop is approved by the URL guard, and the socket connects to
// the addresses the guard approved, never to a second DNS answer.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError, UrlPolicyError } from "../../src/crawl/errors.js";
import { createFetcher, fetchUrl } from "../../src/crawl/fetcher.js";
import { createUrlPolicy, type UrlGuard } from "../../src/crawl/url-policy.js";
import { fixtureGuard, send, serve, type FixtureServer } from "./fixtures.js";

let site: FixtureServer;

beforeAll(async () => {
  site = await serve((req, res, { url }) => {
    const redirect = (to: string) => {
      res.writeHead(302, { location: to });
      res.end();
    };
    if (url.pathname === "/to-localhost") return redirect(`http://localhost:${url.port}/secret`);
    if (url.pathname === "/to-pinned") return redirect(`http://pinned.test:${url.port}/host`);
    if (url.pathname === "/host") return send(req, res, { type: "text/plain", body: req.headers.host ?? "" });
    send(req, res, { type: "text/plain", body: "ok" });
  });
});
afterAll(() => site.close());

/**
 * A guard that "resolves" pinned.test to 127.0.0.1 and counts its checks; the system resolver
 * knows no such name (.test is reserved), so a fetch that works went to the guard's address.
 */
function pinningGuard(): UrlGuard & { checked: string[] } {
  const checked: string[] = [];
  const policy = createUrlPolicy({
    allowPrivateNetworks: true,
    resolve: async (host) => {
      if (host === "pinned.test") return [{ address: "127.0.0.1", family: 4 }];
      throw Object.assign(new Error(`no DNS for ${host}`), { code: "ENOTFOUND" });
    },
  });
  return {
    checked,
    check(url, signal) {
      checked.push(String(url));
      return policy.check(url, signal);
    },
  };
}

describe("fetcher address guard", () => {
  it("connects to the address the guard approved (no second DNS lookup)", async () => {
    const guard = pinningGuard();
    const fetcher = createFetcher({ guard });
    try {
      const res = await fetcher.fetch(`http://pinned.test:${site.port}/host`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe(`pinned.test:${site.port}`);
    } finally {
      fetcher.close();
    }
  });

  it("checks every redirect hop with the guard", async () => {
    const guard = pinningGuard();
    const fetcher = createFetcher({ guard });
    try {
      const res = await fetcher.fetch(`${site.base}/to-pinned`);
      expect(res.body.toString()).toBe(`pinned.test:${site.port}`);
      expect(guard.checked).toEqual([`${site.base}/to-pinned`, `http://pinned.test:${site.port}/host`]);
      expect(fetcher.requestCount).toBe(2);
    } finally {
      fetcher.close();
    }
  });

  it("refuses a redirect to a loopback name and sends nothing to it", async () => {
    const fetcher = createFetcher({ guard: fixtureGuard(site.base) });
    try {
      const err = await fetcher.fetch(`${site.base}/to-localhost`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UrlPolicyError);
      expect((err as UrlPolicyError).code).toBe("blocked_address");
      expect((err as UrlPolicyError).message).toContain("The host localhost is a loopback name");
      expect(site.count("/secret")).toBe(0);
      expect(fetcher.requestCount).toBe(1);
    } finally {
      fetcher.close();
    }
  });

  it("refuses loopback outright when private networks are off", async () => {
    const err = await fetchUrl(`${site.base}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UrlPolicyError);
    expect((err as UrlPolicyError).message).toContain("The URL resolves to 127.0.0.1, a loopback address");
  });

  it("fetchUrl fetches with the loopback allowance", async () => {
    const res = await fetchUrl(`${site.base}/`, { allowPrivateNetworks: true });
    expect(res.body.toString()).toBe("ok");
  });

  it("passes the guard's DNS failures through", async () => {
    const fetcher = createFetcher({ guard: pinningGuard() });
    try {
      const err = await fetcher.fetch("http://nowhere.test/").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FetchError);
      expect((err as FetchError).code).toBe("dns");
      expect(fetcher.requestCount).toBe(0);
    } finally {
      fetcher.close();
    }
  });
});
