// HTTP fetcher for the crawler.
//
// Built on node:http/https rather than the global fetch because fetch offers no hook into name
// resolution: here every hop is approved by the URL guard first and the socket then connects to
// exactly the addresses the guard approved (a pinned `lookup`), so DNS rebinding between check
// and connect is impossible. Redirects are followed by hand (max 10, loop detection, guard on
// every hop); bodies are decompressed while streaming and counted after decompression, so a
// small gzip bomb is stopped at the cap like any other oversized page.

import http from "node:http";
import https from "node:https";
import type { LookupAddress, LookupOneOptions } from "node:dns";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import { FetchError, UrlPolicyError } from "./errors.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_REDIRECTS, PAGE_SIZE_LIMIT_BYTES, USER_AGENT } from "./limits.js";
import { createUrlPolicy, type ResolvedAddress, type UrlGuard } from "./url-policy.js";

export interface FetchRequest {
  method?: string;
  /** extra request headers (lower-case names); user-agent and accept-encoding are set here */
  headers?: Record<string, string>;
  body?: Buffer;
  /** validators from an earlier fetch; sent as If-None-Match / If-Modified-Since */
  etag?: string | null;
  lastModified?: string | null;
  /** whole fetch, all redirect hops and the body included */
  timeoutMs?: number;
  maxBytes?: number;
  /**
   * What to do with a body over maxBytes: "error" (default) throws FetchError("too_large") and the
   * crawler skips the page; "truncate" keeps the first maxBytes (robots.txt, per RFC 9309).
   */
  onTooLarge?: "error" | "truncate";
  maxRedirects?: number;
  signal?: AbortSignal;
  accept?: string;
}

export interface FetchResult {
  /** the URL asked for */
  url: string;
  /** the URL of the response after redirects */
  finalUrl: string;
  status: number;
  statusText: string;
  contentType: string | null;
  body: Buffer;
  etag: string | null;
  lastModified: string | null;
  /** every URL that answered with a redirect, in order (the requested URL first) */
  redirects: string[];
  /** response headers, lower-case names, repeated headers joined with ", " */
  headers: Record<string, string>;
  truncated: boolean;
}

export interface Fetcher {
  fetch(url: string, request?: FetchRequest): Promise<FetchResult>;
  /** requests sent (each redirect hop counts) */
  readonly requestCount: number;
  /** closes keep-alive sockets */
  close(): void;
}

export interface FetcherOptions {
  guard: UrlGuard;
  userAgent?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/pdf;q=0.8,*/*;q=0.5";

export function createFetcher(options: FetcherOptions): Fetcher {
  // One agent pair per fetcher (= per crawl) so keep-alive sockets never outlive the crawl.
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 8 }), https: new https.Agent({ keepAlive: true, maxSockets: 8 }) };
  let requestCount = 0;
  const ctx: FetcherContext = { options, agents, sent: () => void requestCount++ };
  return {
    fetch: (url, req) => fetchFollowingRedirects(ctx, url, req),
    get requestCount() {
      return requestCount;
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** What one fetcher's requests share: its options, its sockets, its request count. */
interface FetcherContext {
  options: FetcherOptions;
  agents: { http: http.Agent; https: http.Agent };
  /** counts one request sent (each redirect hop counts) */
  sent(): void;
}

/** The request as it moves along redirect hops; a redirect may change method, body and headers. */
interface HopRequest {
  method: string;
  body: Buffer | undefined;
  headers: Record<string, string>;
}

/** Fetches `input`, approving every hop with the guard and following redirects by hand. */
async function fetchFollowingRedirects(ctx: FetcherContext, input: string, req: FetchRequest = {}): Promise<FetchResult> {
  const { options } = ctx;
  const timeoutMs = req.timeoutMs ?? options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBytes = req.maxBytes ?? options.maxBytes ?? PAGE_SIZE_LIMIT_BYTES;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
  const trail: RedirectTrail = { input, redirects: [], seen: new Set(), maxRedirects: req.maxRedirects ?? MAX_REDIRECTS };
  const hop: HopRequest = { method: (req.method ?? "GET").toUpperCase(), body: req.body, headers: initialHeaders(options, req) };

  let current = input;
  for (;;) {
    if (signal.aborted) throw abortError(deadline, timeoutMs, current);
    const checked = await options.guard.check(current, signal).catch((err: unknown) => {
      if (err instanceof FetchError && err.code === "aborted") throw abortError(deadline, timeoutMs, current);
      throw err;
    });
    trail.seen.add(checked.url.href);
    ctx.sent();
    const res = await requestOnce(checked.url, checked.addresses, {
      ...hop,
      signal,
      maxBytes,
      onTooLarge: req.onTooLarge ?? "error",
      agent: checked.url.protocol === "https:" ? ctx.agents.https : ctx.agents.http,
      timeoutError: () => abortError(deadline, timeoutMs, checked.url.href),
    });

    const location = res.headers.location;
    if (REDIRECT_STATUSES.has(res.status) && location !== undefined) {
      current = followRedirect(trail, checked.url, res.status, location, hop);
      continue;
    }
    return {
      url: input,
      finalUrl: checked.url.href,
      status: res.status,
      statusText: res.statusText,
      contentType: res.headers["content-type"] ?? null,
      body: res.body,
      etag: res.headers.etag ?? null,
      lastModified: res.headers["last-modified"] ?? null,
      redirects: trail.redirects,
      headers: res.headers,
      truncated: res.truncated,
    };
  }
}

function initialHeaders(options: FetcherOptions, req: FetchRequest): Record<string, string> {
  const headers: Record<string, string> = {
    accept: req.accept ?? DEFAULT_ACCEPT,
    ...lowerKeys(req.headers ?? {}),
    "user-agent": options.userAgent ?? USER_AGENT,
    "accept-encoding": "gzip, deflate, br",
  };
  if (req.etag) headers["if-none-match"] = req.etag;
  if (req.lastModified) headers["if-modified-since"] = req.lastModified;
  return headers;
}

interface RedirectTrail {
  /** the URL asked for */
  input: string;
  /** URLs that answered with a redirect, in order */
  redirects: string[];
  /** URLs requested so far */
  seen: Set<string>;
  maxRedirects: number;
}

/**
 * The next hop's URL after `from` answered a redirect to `location`; throws on invalid, looping,
 * too many or non-HTTP redirects. Adjusts the request the way browsers do.
 */
function followRedirect(trail: RedirectTrail, from: URL, status: number, location: string, hop: HopRequest): string {
  const { input } = trail;
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new FetchError("bad_redirect", `${from.href} redirects to an invalid URL (${location}).`, input);
  }
  next.hash = "";
  trail.redirects.push(from.href);
  if (trail.seen.has(next.href)) {
    throw new FetchError("redirect_loop", `${input} redirects in a loop (${[...trail.redirects, next.href].join(" -> ")}).`, input);
  }
  if (trail.redirects.length > trail.maxRedirects) {
    throw new FetchError("too_many_redirects", `${input} redirects more than ${trail.maxRedirects} times.`, input);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new FetchError("bad_redirect", `${from.href} redirects to ${next.protocol} URL, which cannot be crawled.`, input);
  }
  // Browser semantics: 303 always, and 301/302 after POST, continue as GET without a body.
  if (status === 303 || ((status === 301 || status === 302) && hop.method === "POST")) {
    hop.method = hop.method === "HEAD" ? "HEAD" : "GET";
    hop.body = undefined;
    hop.headers = omit(hop.headers, ["content-type", "content-length"]);
  }
  // credentials never follow a redirect to another origin
  if (next.origin !== from.origin) hop.headers = omit(hop.headers, ["cookie", "authorization"]);
  return next.href;
}

/** One-off fetch with its own policy and sockets; for scripts and tests. */
export async function fetchUrl(
  url: string,
  options: FetchRequest & { allowPrivateNetworks?: boolean; guard?: UrlGuard; userAgent?: string } = {},
): Promise<FetchResult> {
  const guard = options.guard ?? createUrlPolicy({ allowPrivateNetworks: options.allowPrivateNetworks ?? false });
  const fetcher = createFetcher({ guard, userAgent: options.userAgent });
  try {
    return await fetcher.fetch(url, options);
  } finally {
    fetcher.close();
  }
}

function abortError(deadline: AbortSignal, timeoutMs: number, url: string): FetchError {
  return deadline.aborted
    ? new FetchError("timeout", `${url} did not answer within ${Math.round(timeoutMs / 100) / 10} s.`, url)
    : new FetchError("aborted", "The request was cancelled.", url);
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}

function omit(h: Record<string, string>, names: string[]): Record<string, string> {
  const out = { ...h };
  for (const n of names) delete out[n];
  return out;
}

interface HopOptions {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  signal: AbortSignal;
  maxBytes: number;
  onTooLarge: "error" | "truncate";
  agent: http.Agent;
  timeoutError: () => FetchError;
}

interface HopResult {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

/** A lookup that answers with the guard's addresses only, so the socket cannot go elsewhere. */
function pinnedLookup(addresses: ResolvedAddress[]) {
  return (
    _hostname: string,
    opts: LookupOneOptions & { all?: boolean },
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const wanted = opts.family === 4 || opts.family === 6 ? addresses.filter((a) => a.family === opts.family) : addresses;
    const list = wanted.length ? wanted : addresses;
    if (opts.all) callback(null, list.map((a) => ({ address: a.address, family: a.family })));
    else callback(null, list[0].address, list[0].family);
  };
}

/** How one hop ends: once, with a result or an error. */
interface HopState {
  settled: boolean;
  /** the (decoded) body stream, destroyed on error */
  stream?: Readable;
}
type FinishHop = (err: Error | null, value?: HopResult) => void;

function requestOnce(url: URL, addresses: ResolvedAddress[], o: HopOptions): Promise<HopResult> {
  return new Promise<HopResult>((resolve, reject) => {
    const lib = url.protocol === "https:" ? https : http;
    const headers: Record<string, string> = { ...o.headers };
    if (o.body) headers["content-length"] = String(o.body.length);
    const hop: HopState = { settled: false };
    const finish: FinishHop = (err, value) => {
      if (hop.settled) return;
      hop.settled = true;
      o.signal.removeEventListener("abort", onAbort);
      if (err) {
        req.destroy();
        hop.stream?.destroy();
        reject(err);
      } else resolve(value as HopResult);
    };
    const onAbort = () => finish(o.timeoutError());

    const req = lib.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: o.method,
        headers,
        agent: o.agent,
        lookup: pinnedLookup(addresses) as unknown as typeof import("node:dns").lookup,
      },
      (res) => readResponse(res, url, o, hop, finish),
    );
    req.on("error", (e: NodeJS.ErrnoException) => {
      finish(new FetchError("network", `Could not fetch ${url.href} (${e.code ?? e.message}).`, url.href));
    });
    if (o.signal.aborted) {
      onAbort();
      return;
    }
    o.signal.addEventListener("abort", onAbort, { once: true });
    req.end(o.body);
  });
}

/** A response: its head, and its body decompressed and capped (or none, for redirects, HEAD, 204, 304). */
function readResponse(res: http.IncomingMessage, url: URL, o: HopOptions, hop: HopState, finish: FinishHop): void {
  const status = res.statusCode ?? 0;
  const resHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  const head = { status, statusText: res.statusMessage ?? "", headers: resHeaders };
  // Redirect bodies are never read; dropping the socket is cheaper than draining it.
  if ((REDIRECT_STATUSES.has(status) && resHeaders.location !== undefined) || o.method === "HEAD" || status === 204 || status === 304) {
    res.destroy();
    finish(null, { ...head, body: Buffer.alloc(0), truncated: false });
    return;
  }
  const declared = Number(resHeaders["content-length"]);
  const encoding = (resHeaders["content-encoding"] ?? "identity").trim().toLowerCase();
  if (o.onTooLarge === "error" && encoding === "identity" && Number.isFinite(declared) && declared > o.maxBytes) {
    finish(new FetchError("too_large", tooLargeMessage(url.href, o.maxBytes), url.href));
    return;
  }
  let decoded: Readable = res;
  if (encoding === "gzip" || encoding === "x-gzip") decoded = res.pipe(zlib.createGunzip());
  else if (encoding === "deflate") decoded = res.pipe(zlib.createInflate());
  else if (encoding === "br") decoded = res.pipe(zlib.createBrotliDecompress());
  hop.stream = decoded;
  if (decoded !== res) res.on("error", (e) => decoded.destroy(e));
  collectBody(res, decoded, url, o, hop, (body, truncated) => finish(null, { ...head, body, truncated }), finish);
  res.on("aborted", () => finish(new FetchError("network", `${url.href} closed the connection mid-response.`, url.href)));
}

/** Reads the decoded body up to maxBytes: beyond it the hop fails (too_large) or, for "truncate", ends early. */
function collectBody(
  res: http.IncomingMessage,
  decoded: Readable,
  url: URL,
  o: HopOptions,
  hop: HopState,
  done: (body: Buffer, truncated: boolean) => void,
  finish: FinishHop,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  decoded.on("data", (chunk: Buffer) => {
    if (hop.settled) return;
    if (size + chunk.length > o.maxBytes) {
      if (o.onTooLarge === "truncate") {
        chunks.push(chunk.subarray(0, o.maxBytes - size));
        size = o.maxBytes;
        done(Buffer.concat(chunks), true);
        res.destroy();
        decoded.destroy();
      } else {
        finish(new FetchError("too_large", tooLargeMessage(url.href, o.maxBytes), url.href));
      }
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  decoded.on("end", () => done(Buffer.concat(chunks), false));
  decoded.on("error", (e: NodeJS.ErrnoException) => finish(new FetchError("network", `Reading ${url.href} failed (${e.code ?? e.message}).`, url.href)));
}

function tooLargeMessage(url: string, maxBytes: number): string {
  return `${url} is larger than the page size limit of ${formatBytes(maxBytes)}; it was skipped.`;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

// Re-exported so callers can catch the fetcher's errors from one module.
export { FetchError, UrlPolicyError };
