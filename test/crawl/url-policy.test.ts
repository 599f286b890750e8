import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError, UrlPolicyError } from "../../src/crawl/errors.js";
import { createFetcher } from "../../src/crawl/fetcher.js";
import { runCrawl } from "../../src/crawl/crawler.js";
import { checkSite } from "../../src/crawl/site-check.js";
import { classifyAddress, createUrlPolicy, normalizeUrl, type Resolver } from "../../src/crawl/url-policy.js";
import { docsSite, fixtureGuard, serve, type FixtureServer } from "./fixtures.js";

// A resolver for names that must never reach real DNS.
const noDns: Resolver = async (host) => {
  throw Object.assign(new Error(`no DNS in tests (${host})`), { code: "ENOTFOUND" });
};
const strict = createUrlPolicy({ allowPrivateNetworks: false, resolve: noDns });

async function refusal(url: string, policy = strict): Promise<UrlPolicyError> {
  const err = await policy.check(url).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UrlPolicyError);
  return err as UrlPolicyError;
}

describe("URL policy (private networks off)", () => {
  it("refuses loopback with a message a user can act on", async () => {
    const err = await refusal("http://127.0.0.1/");
    expect(err.message).toBe("The URL resolves to 127.0.0.1, a loopback address; crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).");
    expect(err.code).toBe("blocked_address");
  });

  it.each([
    ["http://localhost/", "loopback"],
    ["http://app.localhost:3000/", "loopback"],
    ["http://10.1.2.3/", "a private network address"],
    ["http://192.168.0.10/", "a private network address"],
    ["http://172.20.0.1/", "a private network address"],
    ["http://169.254.169.254/latest/meta-data/", "a link-local address"],
    ["http://[::1]/", "a loopback address"],
    ["http://0x7f000001/", "127.0.0.1, a loopback address"],
    ["http://2130706433/", "127.0.0.1, a loopback address"],
    ["http://0177.0.0.1/", "127.0.0.1, a loopback address"],
    ["http://127.1/", "127.0.0.1, a loopback address"],
    ["http://[::ffff:127.0.0.1]/", "an IPv4-mapped IPv6 form of a loopback address"],
    ["http://[::ffff:a9fe:a9fe]/", "an IPv4-mapped IPv6 form of a link-local address"],
    ["http://100.64.3.4/", "carrier-grade NAT"],
    ["http://224.0.0.251/", "a multicast address"],
    ["http://0.0.0.0/", "an unspecified address"],
    ["http://[::]/", "an unspecified address"],
    ["http://[fd12:3456::1]/", "a unique-local address"],
    ["http://[fe80::1]/", "a link-local address"],
    ["http://[ff02::1]/", "a multicast address"],
    ["http://[64:ff9b::a00:1]/", "private network"],
  ])("refuses %s", async (url, fragment) => {
    const err = await refusal(url);
    expect(err.message).toContain(fragment);
    expect(err.message).toContain("crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).");
  });

  it("refuses non-http schemes, credentials and overlong URLs before any lookup", async () => {
    expect((await refusal("ftp://example.org/")).code).toBe("unsupported_scheme");
    expect((await refusal("file:///etc/passwd")).code).toBe("unsupported_scheme");
    expect((await refusal("javascript:alert(1)")).code).toBe("unsupported_scheme");
    expect((await refusal("http://user:pw@example.org/")).code).toBe("credentials_in_url");
    expect((await refusal(`http://example.org/${"a".repeat(2100)}`)).code).toBe("url_too_long");
    expect((await refusal("not a url")).code).toBe("invalid_url");
  });

  it("checks every address a name resolves to (injected resolver)", async () => {
    const resolve: Resolver = async (host) =>
      host === "intranet.example"
        ? [{ address: "10.0.0.7", family: 4 }]
        : host === "mixed.example"
          ? [{ address: "93.184.216.34", family: 4 }, { address: "fd00::5", family: 6 }]
          : [{ address: "93.184.216.34", family: 4 }];
    const policy = createUrlPolicy({ allowPrivateNetworks: false, resolve });
    const err = await refusal("https://intranet.example/wiki", policy);
    expect(err.message).toBe("The host intranet.example resolves to 10.0.0.7, a private network address; crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).");
    expect((await refusal("https://mixed.example/", policy)).address).toBe("fd00::5");
    // public: allowed, and the checked addresses are what the fetcher will connect to
    const ok = await policy.check("https://docs.example.com/guide");
    expect(ok.addresses).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });

  it("allows private addresses when the deployment allows private networks", async () => {
    const loose = createUrlPolicy({ allowPrivateNetworks: true, resolve: noDns });
    await expect(loose.check("http://127.0.0.1:9/")).resolves.toMatchObject({ addresses: [{ address: "127.0.0.1", family: 4 }] });
    await expect(loose.check("http://[::1]/")).resolves.toMatchObject({ addresses: [{ address: "::1", family: 6 }] });
  });

  it("reports unresolvable hosts as DNS failures, not policy refusals", async () => {
    const err = await strict.check("https://nowhere.invalid/").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect((err as FetchError).code).toBe("dns");
  });

  it("classifies public addresses as public", () => {
    expect(classifyAddress("93.184.216.34")).toBeNull();
    expect(classifyAddress("2606:2800:220:1:248:1893:25c8:1946")).toBeNull();
    expect(classifyAddress("::ffff:93.184.216.34")).toBeNull();
    expect(classifyAddress("172.32.0.1")).toBeNull();
    expect(classifyAddress("fe80::1%eth0")?.kind).toBe("link_local");
    expect(classifyAddress("2001:4860:4860::8888")).toBeNull();
    expect(classifyAddress("192.175.48.1")).toBeNull(); // AS112 anycast DNS is public
  });

  it.each([
    ["::ffff:0:127.0.0.1", "loopback", true], // IPv4-translated (RFC 6145)
    ["::127.0.0.1", "loopback", true], // deprecated IPv4-compatible
    ["::a00:1", "private", true],
    ["2002:7f00:1::", "loopback", true], // 6to4 of 127.0.0.1
    ["2002:c0a8:101::1", "private", true], // 6to4 of 192.168.1.1
    ["64:ff9b::7f00:1", "loopback", true], // NAT64 well-known prefix
    ["64:ff9b::5db8:d822", null, false], // NAT64 of a public address
    ["64:ff9b:1::1", "private", false], // local-use NAT64
    ["2001::1", "reserved", false], // Teredo
    ["2001:db8::1", "reserved", false], // documentation
    ["fec0::1", "private", false], // deprecated site-local
    ["100::1", "reserved", false], // discard-only
    ["FE80::ABCD", "link_local", false], // upper case
    ["255.255.255.255", "reserved", false],
    ["198.18.0.1", "reserved", false], // benchmarking
    ["not-an-ip", "reserved", false],
  ])("classifies %s as %s", (address, kind, mapped) => {
    const c = classifyAddress(address);
    expect(c?.kind ?? null).toBe(kind);
    if (c) expect(c.label.startsWith("an IPv4-mapped IPv6 form")).toBe(mapped);
  });
});

describe("redirects are re-checked on every hop", () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await serve((req, res, { url }) => {
      const to: Record<string, string> = {
        "/to-private": "http://10.0.0.1/admin",
        "/to-metadata": "http://169.254.169.254/latest/meta-data/",
        "/to-v6-loopback": `http://[::1]:${url.port || 80}/`,
        "/to-hex": "http://0x7f000001/",
        "/hop": "/to-private",
      };
      const target = to[url.pathname];
      if (target) {
        res.writeHead(302, { location: target });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<a href="/hop">hop</a>`);
    });
  });
  afterAll(() => site.close());

  it.each(["/to-private", "/to-metadata", "/to-v6-loopback", "/to-hex", "/hop"])(
    "refuses %s after an allowed first hop",
    async (path) => {
      // The fixture origin plays an allowed public site; every other target gets the strict policy.
      const fetcher = createFetcher({ guard: fixtureGuard(site.base) });
      try {
        const err = await fetcher.fetch(`${site.base}${path}`).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UrlPolicyError);
        expect((err as UrlPolicyError).message).toContain("crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).");
      } finally {
        fetcher.close();
      }
    },
  );

  it("a crawl records the refused redirect as a page error", async () => {
    const errors: Array<[string, string]> = [];
    const result = await runCrawl({ url: `${site.base}/`, guard: fixtureGuard(site.base), maxDepth: 1 }, {
      onPage: async () => undefined,
      onError: (url, msg) => errors.push([url, msg]),
    });
    expect(result.pagesCrawled).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0][0]).toBe(`${site.base}/hop`);
    expect(errors[0][1]).toBe("The URL resolves to 10.0.0.1, a private network address; crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).");
  });

  it("with the switch off, the crawler and the site check never touch a loopback site", async () => {
    const docs = await serve(docsSite());
    try {
      const result = await runCrawl({ url: `${docs.base}/`, allowPrivateNetworks: false }, { onPage: async () => undefined });
      expect(result.pagesCrawled).toBe(0);
      expect(result.error).toBe("The URL resolves to 127.0.0.1, a loopback address; crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).");
      const check = await checkSite(`${docs.base}/`, { allowPrivateNetworks: false });
      expect(check.can_crawl).toBe(false);
      expect(check.reachable).toBe(false);
      expect(check.blocked_reason).toContain("a loopback address");
      expect(check.checks).toContainEqual(expect.objectContaining({ name: "url_policy", status: "fail" }));
      expect(docs.hits).toHaveLength(0);
    } finally {
      await docs.close();
    }
  });
});

describe("normalizeUrl", () => {
  it.each([
    ["HTTP://Docs.Example.COM:80/a/./b/../c?b=2&a=1#frag", "http://docs.example.com/a/c?a=1&b=2"],
    ["https://example.com:443/", "https://example.com/"],
    ["https://example.com", "https://example.com/"],
    ["https://example.com./x", "https://example.com/x"],
    ["https://example.com/p?utm_source=x&utm_medium=y&fbclid=1&gclid=2&id=7", "https://example.com/p?id=7"],
    ["https://example.com/p?SessionId=1&JSESSIONID=2&phpsessid=3&sid=4&q=a", "https://example.com/p?q=a"],
    ["https://example.com/p;jsessionid=ABC123?x=1", "https://example.com/p?x=1"],
    ["https://example.com/%7euser/%2f%41", "https://example.com/~user/%2FA"],
    ["https://example.com/docs/", "https://example.com/docs/"],
    ["https://example.com/docs", "https://example.com/docs"],
    ["https://example.com/p?", "https://example.com/p"],
    ["https://u:p@example.com/", "https://example.com/"],
    ["https://example.com/s?q=a+b&q=a%20b", "https://example.com/s?q=a%20b&q=a+b"],
  ])("%s -> %s", (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it("resolves relative URLs against a base", () => {
    expect(normalizeUrl("../b?utm_campaign=z", "https://example.com/a/c/")).toBe("https://example.com/a/b");
  });
});
