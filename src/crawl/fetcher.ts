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
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 8 });
  let requestCount = 0;

  async function fetchUrl(input: string, req: FetchRequest = {}): Promise<FetchResult> {
    const timeoutMs = req.timeoutMs ?? options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const maxBytes = req.maxBytes ?? options.maxBytes ?? PAGE_SIZE_LIMIT_BYTES;
    const maxRedirects = req.maxRedirects ?? MAX_REDIRECTS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;

    const redirects: string[] = [];
    const seen = new Set<string>();
    let method = (req.method ?? "GET").toUpperCase();
    let body = req.body;
    let headers: Record<string, string> = {
      accept: req.accept ?? DEFAULT_ACCEPT,
      ...lowerKeys(req.headers ?? {}),
      "user-agent": options.userAgent ?? USER_AGENT,
      "accept-encoding": "gzip, deflate, br",
    };
    if (req.etag) headers["if-none-match"] = req.etag;
    if (req.lastModified) headers["if-modified-since"] = req.lastModified;

    let current = input;
    for (;;) {
      if (signal.aborted) throw abortError(deadline, timeoutMs, current);
      const checked = await options.guard.check(current, signal).catch((err: unknown) => {
        if (err instanceof FetchError && err.code === "aborted") throw abortError(deadline, timeoutMs, current);
        throw err;
      });
      seen.add(checked.url.href);
      requestCount++;
      const res = await requestOnce(checked.url, checked.addresses, {
        method,
        headers,
        body,
        signal,
        maxBytes,
        onTooLarge: req.onTooLarge ?? "error",
        agent: checked.url.protocol === "https:" ? httpsAgent : httpAgent,
        timeoutError: () => abortError(deadline, timeoutMs, checked.url.href),
      });

      const location = res.headers.location;
      if (REDIRECT_STATUSES.has(res.status) && location !== undefined) {
        let next: URL;
        try {
          next = new URL(location, checked.url);
        } catch {
          throw new FetchError("bad_redirect", `${checked.url.href} redirects to an invalid URL (${location}).`, input);
        }
        next.hash = "";
        redirects.push(checked.url.href);
        if (seen.has(next.href)) {
          throw new FetchError("redirect_loop", `${input} redirects in a loop (${[...redirects, next.href].join(" -> ")}).`, input);
        }
        if (redirects.length > maxRedirects) {
          throw new FetchError("too_many_redirects", `${input} redirects more than ${maxRedirects} times.`, input);
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") {
          throw new FetchError("bad_redirect", `${checked.url.href} redirects to ${next.protocol} URL, which cannot be crawled.`, input);
        }
        // Browser semantics: 303 always, and 301/302 after POST, continue as GET without a body.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          method = method === "HEAD" ? "HEAD" : "GET";
          body = undefined;
          headers = omit(headers, ["content-type", "content-length"]);
        }
        if (next.origin !== checked.url.origin) headers = omit(headers, ["cookie", "authorization"]);
        current = next.href;
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
        redirects,
        headers: res.headers,
        truncated: res.truncated,
      };
    }
  }

  return {
    fetch: fetchUrl,
    get requestCount() {
      return requestCount;
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
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

function requestOnce(url: URL, addresses: ResolvedAddress[], o: HopOptions): Promise<HopResult> {
  return new Promise<HopResult>((resolve, reject) => {
    const lib = url.protocol === "https:" ? https : http;
    const headers: Record<string, string> = { ...o.headers };
    if (o.body) headers["content-length"] = String(o.body.length);
    let settled = false;
    let stream: Readable | undefined;
    const finish = (err: Error | null, value?: HopResult) => {
      if (settled) return;
      settled = true;
      o.signal.removeEventListener("abort", onAbort);
      if (err) {
        req.destroy();
        stream?.destroy();
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
      (res) => {
        const status = res.statusCode ?? 0;
        const resHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) {
          if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(", ") : v;
        }
        const base = { status, statusText: res.statusMessage ?? "", headers: resHeaders };
        // Redirect bodies are never read; dropping the socket is cheaper than draining it.
        if ((REDIRECT_STATUSES.has(status) && resHeaders.location !== undefined) || o.method === "HEAD" || status === 204 || status === 304) {
          res.destroy();
          finish(null, { ...base, body: Buffer.alloc(0), truncated: false });
          return;
        }
        const declared = Number(resHeaders["content-length"]);
        const encoding = (resHeaders["content-encoding"] ?? "identity").trim().toLowerCase();
        if (o.onTooLarge === "error" && encoding === "identity" && Number.isFinite(declared) && declared > o.maxBytes) {
          finish(new FetchError("too_large", tooLargeMessage(url.href, o.maxBytes), url.href));
          return;
        }
        stream = res;
        if (encoding === "gzip" || encoding === "x-gzip") stream = res.pipe(zlib.createGunzip());
        else if (encoding === "deflate") stream = res.pipe(zlib.createInflate());
        else if (encoding === "br") stream = res.pipe(zlib.createBrotliDecompress());
        const decoded = stream;
        if (decoded !== res) res.on("error", (e) => decoded.destroy(e));

        const chunks: Buffer[] = [];
        let size = 0;
        decoded.on("data", (chunk: Buffer) => {
          if (settled) return;
          if (size + chunk.length > o.maxBytes) {
            if (o.onTooLarge === "truncate") {
              chunks.push(chunk.subarray(0, o.maxBytes - size));
              size = o.maxBytes;
              finish(null, { ...base, body: Buffer.concat(chunks), truncated: true });
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
        decoded.on("end", () => finish(null, { ...base, body: Buffer.concat(chunks), truncated: false }));
        decoded.on("error", (e: NodeJS.ErrnoException) =>
          finish(new FetchError("network", `Reading ${url.href} failed (${e.code ?? e.message}).`, url.href)),
        );
        res.on("aborted", () => finish(new FetchError("network", `${url.href} closed the connection mid-response.`, url.href)));
      },
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
