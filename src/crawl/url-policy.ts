// SSRF guard and URL normalisation.
//
// The guard resolves a URL's host and refuses addresses inside private, loopback, link-local and
// other non-public ranges unless the deployment allows private networks. It returns the addresses
// it checked so the fetcher can connect to exactly those (DNS pinning): a host cannot pass the
// check with a public address and then be connected to a private one by a second DNS answer.

import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { FetchError, UrlPolicyError } from "./errors.js";
import { MAX_URL_LENGTH } from "./limits.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name (never an IP literal) to every address it has. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface CheckedUrl {
  url: URL;
  /** addresses the connection may use; all passed the policy */
  addresses: ResolvedAddress[];
}

/** Anything that can approve a URL before a connection is made; the fetcher only needs this. */
export interface UrlGuard {
  check(url: string | URL, signal?: AbortSignal): Promise<CheckedUrl>;
}

export interface UrlPolicyOptions {
  /** CRAWL_ALLOW_PRIVATE_NETWORKS; false refuses every non-public address */
  allowPrivateNetworks: boolean;
  /** defaults to dns.lookup with all addresses (the system resolver, /etc/hosts included) */
  resolve?: Resolver;
  resolveTimeoutMs?: number;
}

const PRIVATE_DISABLED = "crawling private networks is disabled on this deployment (an operator can allow it with CRAWL_ALLOW_PRIVATE_NETWORKS=true).";

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Syntax-level checks that need no network: http(s) only, no credentials, length. Throws
 * UrlPolicyError; returns the parsed URL.
 */
export function parseCrawlUrl(input: string | URL): URL {
  const raw = String(input);
  if (raw.length > MAX_URL_LENGTH) {
    throw new UrlPolicyError("url_too_long", `The URL is ${raw.length} characters long; the limit is ${MAX_URL_LENGTH}.`, raw);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlPolicyError("invalid_url", `"${raw}" is not a valid absolute URL; include the scheme, e.g. https://docs.example.com/.`, raw);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UrlPolicyError("unsupported_scheme", `Only http and https URLs can be crawled; "${url.protocol}" is not supported.`, raw);
  }
  if (url.username || url.password) {
    throw new UrlPolicyError("credentials_in_url", "Remove the user name and password from the URL; the crawler does not send credentials.", raw);
  }
  if (!url.hostname) {
    throw new UrlPolicyError("invalid_url", `"${raw}" has no host name.`, raw);
  }
  return url;
}

export function createUrlPolicy(options: UrlPolicyOptions): UrlGuard {
  const resolve = options.resolve ?? systemResolver;
  const resolveTimeoutMs = options.resolveTimeoutMs ?? 5_000;

  return {
    async check(input, signal) {
      const url = parseCrawlUrl(input);
      const host = bareHostname(url.hostname);
      const literalFamily = isIP(host);
      let addresses: ResolvedAddress[];
      if (literalFamily) {
        addresses = [{ address: host, family: literalFamily === 6 ? 6 : 4 }];
      } else {
        if (!options.allowPrivateNetworks && (host === "localhost" || host.endsWith(".localhost"))) {
          // RFC 6761: these names are loopback by definition, whatever a resolver says.
          throw new UrlPolicyError("blocked_address", `The host ${host} is a loopback name; ${PRIVATE_DISABLED}`, url.href, "127.0.0.1");
        }
        addresses = await resolveWithTimeout(resolve, host, resolveTimeoutMs, url.href, signal);
      }
      if (!options.allowPrivateNetworks) {
        for (const a of addresses) {
          const cls = classifyAddress(a.address);
          if (cls) {
            const subject = literalFamily ? "The URL resolves to" : `The host ${host} resolves to`;
            throw new UrlPolicyError("blocked_address", `${subject} ${a.address}, ${cls.label}; ${PRIVATE_DISABLED}`, url.href, a.address);
          }
        }
      }
      return { url, addresses };
    },
  };
}

async function resolveWithTimeout(
  resolve: Resolver,
  host: string,
  timeoutMs: number,
  url: string,
  signal?: AbortSignal,
): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    // dns.lookup cannot be cancelled; racing it keeps a hung resolver from hanging the crawl.
    const result = await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new FetchError("dns", `Resolving ${host} took longer than ${timeoutMs} ms.`, url)), timeoutMs);
        if (signal) {
          onAbort = () => reject(new FetchError("aborted", "The request was cancelled.", url));
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        }
      }),
    ]);
    if (result.length === 0) throw new FetchError("dns", `The host ${host} has no addresses.`, url);
    return result.map((a) => ({ address: bareHostname(a.address), family: a.family }));
  } catch (err) {
    if (err instanceof FetchError) throw err;
    const code = (err as NodeJS.ErrnoException | undefined)?.code ?? "error";
    throw new FetchError("dns", `The host ${host} could not be resolved (${code}); check the spelling of the URL.`, url);
  } finally {
    if (timer) clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener("abort", onAbort);
  }
}

function bareHostname(hostname: string): string {
  let h = hostname;
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  const zone = h.indexOf("%");
  if (zone >= 0 && h.includes(":")) h = h.slice(0, zone);
  return h;
}

// ---------------------------------------------------------------------------------------------
// Address classification

export type AddressKind =
  | "loopback"
  | "private"
  | "link_local"
  | "unique_local"
  | "cgnat"
  | "multicast"
  | "unspecified"
  | "reserved";

export interface AddressClass {
  kind: AddressKind;
  /** "a loopback address", used inside user-facing messages */
  label: string;
}

const LABELS: Record<AddressKind, string> = {
  loopback: "a loopback address",
  private: "a private network address",
  link_local: "a link-local address",
  unique_local: "a unique-local address",
  cgnat: "a carrier-grade NAT (shared) address",
  multicast: "a multicast address",
  unspecified: "an unspecified address",
  reserved: "a reserved or documentation address",
};

function cls(kind: AddressKind, mapped = false): AddressClass {
  return { kind, label: mapped ? `an IPv4-mapped IPv6 form of ${LABELS[kind]}` : LABELS[kind] };
}

/** null for a public unicast address; otherwise what it is. Accepts IPv4 and IPv6 text forms. */
export function classifyAddress(address: string): AddressClass | null {
  const ip = bareHostname(address);
  const family = isIP(ip);
  if (family === 4) return classifyV4(parseV4(ip));
  if (family === 6) return classifyV6(parseV6(ip));
  // Not an address at all: refuse rather than guess.
  return cls("reserved");
}

function parseV4(ip: string): number {
  const p = ip.split(".").map(Number);
  return ((p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]) >>> 0;
}

function inV4(ip: number, base: string, bits: number): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((ip & mask) >>> 0) === ((parseV4(base) & mask) >>> 0);
}

const V4_RANGES: Array<[string, number, AddressKind]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "cgnat"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link_local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

function classifyV4(ip: number, mapped = false): AddressClass | null {
  for (const [base, bits, kind] of V4_RANGES) if (inV4(ip, base, bits)) return cls(kind, mapped);
  return null;
}

/** Eight 16-bit groups. Input is already validated by net.isIP. */
function parseV6(ip: string): number[] {
  let text = ip.toLowerCase();
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseV4(last);
    tail.push(v4 >>> 16, v4 & 0xffff);
    text = text.slice(0, lastColon + 1) + "0";
  }
  const [head, rest] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":").map((g) => parseInt(g, 16)) : [];
  const r = rest !== undefined && rest !== "" ? rest.split(":").map((g) => parseInt(g, 16)) : [];
  if (tail.length) (r.length ? r : h).pop();
  const groups =
    rest === undefined ? [...h, ...tail] : [...h, ...new Array(8 - h.length - r.length - tail.length).fill(0), ...r, ...tail];
  return groups;
}

function v4From(hi: number, lo: number): number {
  return ((hi << 16) | lo) >>> 0;
}

function classifyV6(g: number[]): AddressClass | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return cls("unspecified");
  if (zeroUpTo(7) && g[7] === 1) return cls("loopback");
  // ::ffff:a.b.c.d (mapped) and the deprecated ::a.b.c.d (compatible) reach IPv4 hosts.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(v4From(g[6], g[7]), true);
  if (zeroUpTo(6)) return classifyV4(v4From(g[6], g[7]), true) ?? cls("reserved");
  // NAT64 well-known prefix 64:ff9b::/96 translates to the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyV4(v4From(g[6], g[7]), true);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return cls("private"); // local-use NAT64
  // 6to4 (2002::/16) embeds an IPv4 address in groups 1..2.
  if (g[0] === 0x2002) return classifyV4(v4From(g[1], g[2]), true);
  if (g[0] === 0x2001 && g[1] === 0) return cls("reserved"); // Teredo tunnels
  if (g[0] === 0x2001 && g[1] === 0xdb8) return cls("reserved"); // documentation
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return cls("reserved"); // discard-only
  if ((g[0] & 0xfe00) === 0xfc00) return cls("unique_local");
  if ((g[0] & 0xffc0) === 0xfe80) return cls("link_local");
  if ((g[0] & 0xffc0) === 0xfec0) return cls("private"); // deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return cls("multicast");
  return null;
}

// ---------------------------------------------------------------------------------------------
// URL normalisation

const TRACKING_PARAMS = new Set([
  "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "igshid", "twclid", "ttclid",
  "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id",
  "sessionid", "session_id", "jsessionid", "phpsessid", "sid", "cfid", "cftoken",
]);

/** Query parameters that identify a visitor or campaign, not content. */
export function isTrackingParam(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith("utm_") || n.startsWith("aspsessionid") || TRACKING_PARAMS.has(n);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function normalizePercent(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function decodeParamName(raw: string): string {
  const name = raw.split("=", 1)[0].replace(/\+/g, " ");
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * The key a page is fetched once under: lower-case scheme and host (URL does both), no trailing
 * dot on the host, no default port, no fragment, no credentials, `.`/`..` resolved, percent
 * escapes canonical, session ids removed from path parameters (`;jsessionid=`) and the query,
 * tracking parameters dropped, the remaining parameters sorted. The path's trailing slash is kept
 * as written: `/docs` and `/docs/` can be different resources and relative links resolve
 * differently against them; when one redirects to the other the crawler dedups on the final URL.
 * Throws TypeError when the input does not parse.
 */
export function normalizeUrl(input: string | URL, base?: string | URL): string {
  const url = new URL(String(input), base === undefined ? undefined : String(base));
  url.hash = "";
  url.username = "";
  url.password = "";
  if (url.hostname.endsWith(".") && !url.hostname.startsWith("[")) url.hostname = url.hostname.replace(/\.+$/, "");

  if (url.protocol === "http:" || url.protocol === "https:") {
    const path = url.pathname.replace(/;(?:jsessionid|phpsessid|sessionid|sid)=[^/;?]*/gi, "");
    url.pathname = normalizePercent(path);

    const raw = url.search.startsWith("?") ? url.search.slice(1) : url.search;
    const pairs = raw
      .split("&")
      .filter((p) => p !== "" && !isTrackingParam(decodeParamName(p)))
      .map(normalizePercent);
    pairs.sort((a, b) => {
      const ka = decodeParamName(a);
      const kb = decodeParamName(b);
      if (ka !== kb) return ka < kb ? -1 : 1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    url.search = pairs.length ? `?${pairs.join("&")}` : "";
  }
  return url.href;
}

/** normalizeUrl that returns null instead of throwing, for links found in the wild. */
export function tryNormalizeUrl(input: string, base?: string | URL): string | null {
  try {
    return normalizeUrl(input, base);
  } catch {
    return null;
  }
}
