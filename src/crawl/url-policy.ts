// SSRF guard and URL normalisation.
//
// The guard resolves a URL's host and refuses addresses inside private, loopback, link-local and
// other non-public ranges unless the deployment allows private networks. It returns the addresses
// it checked so the fetcher can connect to exactly those (DNS pinning): a host cannot pass the
// check with a public address and then be connected to a private one by a second DNS answer.

import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
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
  // Only what net.isIP accepts: ipaddr.js alone also takes the classful shorthands (127.1),
  // which the WHATWG URL parser has already turned into dotted quads before we get here.
  if (!isIP(ip)) return cls("reserved"); // not an address at all: refuse rather than guess
  const parsed = ipaddr.parse(ip);
  return parsed.kind() === "ipv4" ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6);
}

// ipaddr.js names the special-purpose ranges (IANA registries); this maps each to what a crawler
// may not reach. Anycast services (AS112 DNS, AMT relays) are public; ranges ipaddr.js adds in a
// later version fall to "reserved" (refused) rather than through to public.
const V4_KINDS: Record<string, AddressKind | null> = {
  unicast: null,
  as112: null,
  amt: null,
  unspecified: "unspecified",
  broadcast: "reserved",
  multicast: "multicast",
  linkLocal: "link_local",
  loopback: "loopback",
  carrierGradeNat: "cgnat",
  private: "private",
  reserved: "reserved",
};

function classifyV4(ip: ipaddr.IPv4, mapped = false): AddressClass | null {
  const range = ip.range();
  const kind = range in V4_KINDS ? V4_KINDS[range] : "reserved";
  return kind ? cls(kind, mapped) : null;
}

const V6_KINDS: Record<string, AddressKind | null> = {
  unicast: null,
  amt: null,
  as112v6: null,
  unspecified: "unspecified",
  loopback: "loopback",
  linkLocal: "link_local",
  multicast: "multicast",
  uniqueLocal: "unique_local",
  deprecatedSiteLocal: "private",
  teredo: "reserved", // tunnels to IPv4 hosts the guard cannot see
};

/** The IPv4 address in the last 32 bits of a v6 address. */
const lastV4 = (p: number[]) => new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);

function classifyV6(ip: ipaddr.IPv6): AddressClass | null {
  const p = ip.parts;
  const range = ip.range();
  // Forms that reach an IPv4 host are judged by that host: mapped (::ffff:a.b.c.d), translated
  // (::ffff:0:a.b.c.d), NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002:AABB:CCDD::).
  if (range === "ipv4Mapped" || range === "rfc6145") return classifyV4(lastV4(p), true);
  if (range === "rfc6052") return p[2] === 1 ? cls("private") : classifyV4(lastV4(p), true); // 64:ff9b:1::/48 is local-use NAT64
  if (range === "6to4") return classifyV4(new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]), true);
  // the deprecated IPv4-compatible form ::a.b.c.d (after :: and ::1, which have names)
  if (range === "unicast" && p.slice(0, 6).every((x) => x === 0)) return classifyV4(lastV4(p), true) ?? cls("reserved");
  const kind = range in V6_KINDS ? V6_KINDS[range] : "reserved";
  return kind ? cls(kind) : null;
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
