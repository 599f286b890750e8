// The pinned agent on its own: pins decide where sockets go, and a host without a pin is checked
// by the guard at connect time instead of being resolved unchecked.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UrlPolicyError } from "../../src/crawl/errors.js";
import { createPinnedAgent } from "../../src/crawl/fetch-agent.js";
import { createUrlPolicy, type UrlGuard } from "../../src/crawl/url-policy.js";
import { send, serve, type FixtureServer } from "./fixtures.js";

let site: FixtureServer;

beforeAll(async () => {
  site = await serve((req, res) => send(req, res, { type: "text/plain", body: "reached" }));
});
afterAll(() => site.close());

/** Resolves every *.test name to 127.0.0.1; `allowPrivateNetworks` decides whether that passes. */
function testGuard(allowPrivateNetworks: boolean): UrlGuard & { checked: string[] } {
  const checked: string[] = [];
  const policy = createUrlPolicy({ allowPrivateNetworks, resolve: async () => [{ address: "127.0.0.1", family: 4 }] });
  return {
    checked,
    check(url, signal) {
      checked.push(String(url));
      return policy.check(url, signal);
    },
  };
}

async function get(agent: ReturnType<typeof createPinnedAgent>, origin: string): Promise<string> {
  const res = await agent.dispatcher.request({ origin, path: "/", method: "GET" });
  return res.body.text();
}

describe("pinned agent", () => {
  it("connects a pinned host to its pinned address without asking the guard again", async () => {
    const guard = testGuard(true);
    const agent = createPinnedAgent(guard);
    try {
      agent.pin("pinned.test", [{ address: "127.0.0.1", family: 4 }]);
      expect(await get(agent, `http://pinned.test:${site.port}`)).toBe("reached");
      expect(guard.checked).toEqual([]);
    } finally {
      agent.destroy();
    }
  });

  it("checks a host without a pin with the guard when connecting", async () => {
    const guard = testGuard(true);
    const agent = createPinnedAgent(guard);
    try {
      expect(await get(agent, `http://unpinned.test:${site.port}`)).toBe("reached");
      expect(guard.checked).toEqual(["http://unpinned.test/"]);
    } finally {
      agent.destroy();
    }
  });

  it("refuses to connect where the guard refuses", async () => {
    const agent = createPinnedAgent(testGuard(false));
    const before = site.hits.length;
    try {
      const err = await get(agent, `http://unpinned.test:${site.port}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UrlPolicyError);
      expect((err as UrlPolicyError).message).toContain("The host unpinned.test resolves to 127.0.0.1, a loopback address");
      expect(site.hits.length).toBe(before);
    } finally {
      agent.destroy();
    }
  });
});
