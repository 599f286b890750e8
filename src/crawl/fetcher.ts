// HTTP fetcher for the crawler.
//
// Built on undici with an agent whose sockets connect only to addresses the URL guard approved
// (fetch-agent.ts): every hop is checked first, so DNS rebinding between check and connect is
// impossible. Redirects are followed by hand (max 10, loop detection, guard on every hop; see
// fetch-redirects.ts); bodies are decompressed while streaming and counted after decompression
// (fetch-body.ts), so a small gzip bomb is stopped at the cap like any other oversized page.

import { FetchError, UrlPolicyError } from "./errors.js";
import { createPinnedAgent, type PinnedAgent } from "./fetch-agent.js";
import { requestOnce, type HopResult } from "./fetch-hop.js";
import { followRedirect, REDIRECT_STATUSES, type HopRequest, type RedirectTrail } from "./fetch-redirects.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, MAX_REDIRECTS, PAGE_SIZE_LIMIT_BYTES, USER_AGENT } from "./limits.js";
import { createUrlPolicy, type CheckedUrl, type UrlGuard } from "./url-policy.js";

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


const DEFAULT_ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/pdf;q=0.8,*/*;q=0.5";

export function createFetcher(options: FetcherOptions): Fetcher {
  // One agent per fetcher (= per crawl) so keep-alive sockets never outlive the crawl.
  const agent = createPinnedAgent(options.guard);
  let requestCount = 0;
  const ctx: FetcherContext = { options, agent, sent: () => void requestCount++ };
  return {
    fetch: (url, req) => fetchFollowingRedirects(ctx, url, req),
    get requestCount() {
      return requestCount;
    },
    close: () => agent.destroy(),
  };
}

/** What one fetcher's requests share: its options, its sockets, its request count. */
interface FetcherContext {
  options: FetcherOptions;
  agent: PinnedAgent;
  /** counts one request sent (each redirect hop counts) */
  sent(): void;
}

/** One fetch across all its hops: the limits that apply to the whole of it, and where it has been. */
interface FetchPlan {
  timeoutMs: number;
  /** fires at the deadline */
  deadline: AbortSignal;
  /** fires at the deadline or on the caller's signal */
  signal: AbortSignal;
  maxBytes: number;
  onTooLarge: "error" | "truncate";
  trail: RedirectTrail;
  hop: HopRequest;
}

function planFetch(options: FetcherOptions, input: string, req: FetchRequest): FetchPlan {
  const timeoutMs = req.timeoutMs ?? options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  return {
    timeoutMs,
    deadline,
    signal: req.signal ? AbortSignal.any([req.signal, deadline]) : deadline,
    maxBytes: req.maxBytes ?? options.maxBytes ?? PAGE_SIZE_LIMIT_BYTES,
    onTooLarge: req.onTooLarge ?? "error",
    trail: { input, redirects: [], seen: new Set(), maxRedirects: req.maxRedirects ?? MAX_REDIRECTS },
    hop: { method: (req.method ?? "GET").toUpperCase(), body: req.body, headers: initialHeaders(options, req) },
  };
}

/** Fetches `input`, approving every hop with the guard and following redirects by hand. */
async function fetchFollowingRedirects(ctx: FetcherContext, input: string, req: FetchRequest = {}): Promise<FetchResult> {
  const plan = planFetch(ctx.options, input, req);
  let current = input;
  for (;;) {
    const checked = await checkHop(ctx, plan, current);
    ctx.sent();
    const res = await requestOnce(checked.url, {
      ...plan.hop,
      dispatcher: ctx.agent.dispatcher,
      signal: plan.signal,
      maxBytes: plan.maxBytes,
      onTooLarge: plan.onTooLarge,
      timeoutError: () => abortError(plan, checked.url.href),
    });
    const location = res.headers.location;
    if (REDIRECT_STATUSES.has(res.status) && location !== undefined) {
      current = followRedirect(plan.trail, checked.url, res.status, location, plan.hop);
      continue;
    }
    return toResult(input, checked.url, res, plan.trail.redirects);
  }
}

/** Approves one hop with the guard and pins the approved addresses for its connection. */
async function checkHop(ctx: FetcherContext, plan: FetchPlan, url: string): Promise<CheckedUrl> {
  if (plan.signal.aborted) throw abortError(plan, url);
  const checked = await ctx.options.guard.check(url, plan.signal).catch((err: unknown) => {
    if (err instanceof FetchError && err.code === "aborted") throw abortError(plan, url);
    throw err;
  });
  plan.trail.seen.add(checked.url.href);
  ctx.agent.pin(checked.url.hostname, checked.addresses);
  return checked;
}

function toResult(input: string, finalUrl: URL, res: HopResult, redirects: string[]): FetchResult {
  return {
    url: input,
    finalUrl: finalUrl.href,
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

function abortError(plan: FetchPlan, url: string): FetchError {
  return plan.deadline.aborted
    ? new FetchError("timeout", `${url} did not answer within ${Math.round(plan.timeoutMs / 100) / 10} s.`, url)
    : new FetchError("aborted", "The request was cancelled.", url);
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}

export { formatBytes } from "./fetch-body.js";
// Re-exported so callers can catch the fetcher's errors from one module.
export { FetchError, UrlPolicyError };
