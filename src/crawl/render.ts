// Headless rendering for render_js crawls: Debian Chromium driven by playwright-core.
//
// Chromium never touches the network itself. Every request a page makes is intercepted and
// served by our own fetcher, which applies the URL policy (with DNS pinning) to the request and
// to each redirect hop. Playwright's route handler alone would not be enough: it is not called
// again for redirect targets, so a page could redirect a subresource into a private network.
// The main document is served from the bytes the crawler already fetched, so it is not fetched
// twice. Images, media and fonts are refused: they add nothing to text and cost time.

import { accessSync, constants as fsConstants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BrowserContext, Page, Route } from "playwright-core";
import { FetchError, UrlPolicyError, describeError } from "./errors.js";
import { createFetcher, type Fetcher } from "./fetcher.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, PAGE_SIZE_LIMIT_BYTES, USER_AGENT } from "./limits.js";
import type { UrlGuard } from "./url-policy.js";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

// Defence in depth: every request is meant to be answered by our route handler, so Chromium's own
// network stack should never be used. Its resolver answers nothing and its direct connections
// (preconnect hints, anything the interception misses) go to a closed loopback port.
const NO_OWN_NETWORK_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--dns-prefetch-disable"];

const BLOCKED_RESOURCE_TYPES = new Set(["image", "media", "font"]);
const HOP_BY_HOP = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);
const NOT_FORWARDED = new Set(["host", "content-length", "accept-encoding", "connection", "user-agent"]);

/** CHROMIUM_PATH or /usr/bin/chromium, when executable; null otherwise. */
export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium"].filter((p): p is string => !!p);
  for (const p of candidates) {
    try {
      accessSync(p, fsConstants.X_OK);
      return p;
    } catch {
      // try the next candidate
    }
  }
  return null;
}

export function chromiumAvailable(): boolean {
  return chromiumPath() !== null;
}

export interface RenderRequest {
  url: string;
  /** the document as already fetched; served to the browser instead of fetching it again */
  body?: Buffer;
  contentType?: string | null;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface RenderResult {
  finalUrl: string;
  /** serialized DOM after scripts ran */
  html: string;
  /** subresource requests refused by the URL policy */
  blockedRequests: string[];
}

export interface Renderer {
  render(request: RenderRequest): Promise<RenderResult>;
  close(): Promise<void>;
}

export interface RendererOptions {
  guard: UrlGuard;
  /** used for the pages' own requests; one is created (and closed with the renderer) if absent */
  fetcher?: Fetcher;
  executablePath?: string;
  userAgent?: string;
  timeoutMs?: number;
  maxBytes?: number;
  /** after "load", how long to wait for the network to go quiet */
  settleMs?: number;
}

interface PageState {
  signal: AbortSignal;
  mainUrl: string;
  mainBody?: Buffer;
  mainContentType?: string | null;
  blocked: string[];
}

/** What every render of one renderer shares. */
interface RendererContext {
  context: BrowserContext;
  /** pages being rendered, with what their requests need */
  states: Map<Page, PageState>;
  fetcher: Fetcher;
  timeoutMs: number;
  maxBytes: number;
  settleMs: number;
}

/** Launches one browser (fresh temp profile) to be shared by all renders of a crawl. */
export async function createRenderer(options: RendererOptions): Promise<Renderer> {
  const executablePath = options.executablePath ?? chromiumPath();
  if (!executablePath) {
    throw new Error("JavaScript rendering is not available: Chromium was not found (set CHROMIUM_PATH or install the chromium package).");
  }
  const ownFetcher = !options.fetcher;
  const fetcher = options.fetcher ?? createFetcher({ guard: options.guard, userAgent: options.userAgent });
  const userDataDir = await mkdtemp(path.join(tmpdir(), "quarry-chromium-"));

  let context: BrowserContext;
  try {
    context = await launchBrowser(executablePath, userDataDir, options.userAgent ?? USER_AGENT);
  } catch (err) {
    await rm(userDataDir, { recursive: true, force: true });
    if (ownFetcher) fetcher.close();
    throw new Error(`Chromium could not be started (${describeError(err).split("\n")[0]}).`);
  }
  const rc: RendererContext = {
    context,
    states: new Map(),
    fetcher,
    timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? PAGE_SIZE_LIMIT_BYTES,
    settleMs: options.settleMs ?? 2_000,
  };
  await serveThroughFetcher(rc);

  let closed = false;
  return {
    async render(req) {
      if (closed) throw new Error("The renderer is closed.");
      return renderPage(rc, req);
    },
    async close() {
      if (closed) return;
      closed = true;
      await context.close().catch(() => undefined);
      if (ownFetcher) fetcher.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

async function launchBrowser(executablePath: string, userDataDir: string, userAgent: string): Promise<BrowserContext> {
  // imported at first launch: playwright-core takes about two seconds to load, which every process
  // would pay although only crawls with render_js ever start a browser
  const { chromium } = await import("playwright-core");
  return chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS, ...NO_OWN_NETWORK_ARGS],
    userAgent,
    serviceWorkers: "block", // service workers would fetch outside our route handler
    acceptDownloads: false,
    timeout: 30_000,
  });
}

/** Every request of the browser goes through our fetcher (or is refused); Chromium's own network is never used. */
async function serveThroughFetcher(rc: RendererContext): Promise<void> {
  // WebSockets are not HTTP requests and would bypass the route handler; nothing we index needs them.
  await rc.context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: "blocked by crawler" }));

  await rc.context.route("**/*", async (route: Route) => {
    const request = route.request();
    const url = request.url();
    let page: Page | null = null;
    try {
      page = request.frame().page();
    } catch {
      // requests without a frame (workers) are not ours to serve
    }
    const state = page ? rc.states.get(page) : undefined;
    if (!page || !state) return route.abort("blockedbyclient");
    if (!/^https?:/i.test(url)) return route.continue();
    if (BLOCKED_RESOURCE_TYPES.has(request.resourceType())) return route.abort("blockedbyclient");
    if (state.mainBody && request.isNavigationRequest() && request.frame() === page.mainFrame() && url === state.mainUrl) {
      const body = state.mainBody;
      state.mainBody = undefined; // a reload or script navigation to the same URL fetches for real
      return route.fulfill({ status: 200, headers: { "content-type": state.mainContentType ?? "text/html; charset=utf-8" }, body });
    }
    await forward(rc, route, state);
  });
}

/** Fetches a page's request with our fetcher (URL policy on every hop) and answers the browser with it. */
async function forward(rc: RendererContext, route: Route, state: PageState): Promise<void> {
  const request = route.request();
  const url = request.url();
  try {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(await request.allHeaders())) {
      if (!k.startsWith(":") && !NOT_FORWARDED.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
    }
    const res = await rc.fetcher.fetch(url, {
      method: request.method(),
      headers,
      body: request.postDataBuffer() ?? undefined,
      signal: state.signal,
      timeoutMs: rc.timeoutMs,
      maxBytes: rc.maxBytes,
    });
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (!HOP_BY_HOP.has(k)) outHeaders[k] = v;
    await route.fulfill({ status: res.status, headers: outHeaders, body: res.body });
  } catch (err) {
    if (err instanceof UrlPolicyError) state.blocked.push(url);
    await route.abort(err instanceof UrlPolicyError ? "blockedbyclient" : "failed").catch(() => undefined);
  }
}

/** One page: served the bytes already fetched, loaded until the network settles, serialised. */
async function renderPage(rc: RendererContext, req: RenderRequest): Promise<RenderResult> {
  const timeoutMs = req.timeoutMs ?? rc.timeoutMs;
  const controller = new AbortController();
  const signals = [controller.signal, AbortSignal.timeout(timeoutMs)];
  if (req.signal) signals.push(req.signal);
  const signal = AbortSignal.any(signals);
  const page = await rc.context.newPage();
  const state: PageState = { signal, mainUrl: new URL(req.url).href, mainBody: req.body, mainContentType: req.contentType, blocked: [] };
  rc.states.set(page, state);
  const onAbort = () => void page.close().catch(() => undefined);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    await page.goto(state.mainUrl, { waitUntil: "load", timeout: timeoutMs });
    await page.waitForLoadState("networkidle", { timeout: rc.settleMs }).catch(() => undefined);
    const html = await page.content();
    return { finalUrl: page.url(), html, blockedRequests: state.blocked };
  } catch (err) {
    if (req.signal?.aborted) throw new FetchError("aborted", "The request was cancelled.", req.url);
    if (signal.aborted) throw new FetchError("timeout", `Rendering ${req.url} took longer than ${Math.round(timeoutMs / 1000)} s.`, req.url);
    throw new FetchError("network", `Rendering ${req.url} failed (${describeError(err).split("\n")[0]}).`, req.url);
  } finally {
    signal.removeEventListener("abort", onAbort);
    controller.abort(); // stop this page's in-flight subresource fetches
    rc.states.delete(page);
    await page.close().catch(() => undefined);
  }
}
