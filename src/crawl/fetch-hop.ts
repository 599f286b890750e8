// One HTTP request (one redirect hop) over undici: send it, read the head, read the body within
// the size cap, and turn whatever goes wrong into a FetchError.

import type { Dispatcher } from "undici";
import { FetchError, UrlPolicyError } from "./errors.js";
import { discard, readBody, tooLargeMessage, type Body } from "./fetch-body.js";
import { omit, REDIRECT_STATUSES, type HopRequest } from "./fetch-redirects.js";

export interface HopOptions extends HopRequest {
  dispatcher: Dispatcher;
  signal: AbortSignal;
  maxBytes: number;
  onTooLarge: "error" | "truncate";
  /** the timeout or cancellation error, for when `signal` has fired */
  timeoutError: () => FetchError;
}

export interface HopResult extends Body {
  status: number;
  statusText: string;
  headers: Record<string, string>;
}

type Head = Omit<HopResult, keyof Body>;

// Connection management is undici's; these would make it refuse the request or desync the socket.
const NOT_SENT = ["connection", "keep-alive", "transfer-encoding", "upgrade", "expect", "content-length"];

export async function requestOnce(url: URL, o: HopOptions): Promise<HopResult> {
  let res: Dispatcher.ResponseData;
  try {
    res = await o.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: o.method as Dispatcher.HttpMethod,
      headers: omit(o.headers, NOT_SENT),
      body: o.body,
      signal: o.signal,
    });
  } catch (err) {
    throw hopError(err, url, o, (code) => `Could not fetch ${url.href} (${code}).`);
  }
  const head = headOf(res);
  if (isBodiless(head, o.method)) {
    // A 304, 204 or HEAD answer has no body: reading its end keeps the connection for the next
    // request (a re-crawl sends one conditional request per page), where destroying the stream
    // would close it and raise an error for nobody. Redirect bodies are never read; dropping the
    // stream is cheaper than draining it.
    if (head.status === 304 || head.status === 204 || o.method === "HEAD") await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    else discard(res.body);
    return { ...head, body: Buffer.alloc(0), truncated: false };
  }
  return { ...head, ...(await readHopBody(res, head, url, o)) };
}

function headOf(res: Dispatcher.ResponseData): Head {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return { status: res.statusCode, statusText: res.statusText ?? "", headers };
}

function isBodiless(head: Head, method: string): boolean {
  const redirect = REDIRECT_STATUSES.has(head.status) && head.headers.location !== undefined;
  return redirect || method === "HEAD" || head.status === 204 || head.status === 304;
}

async function readHopBody(res: Dispatcher.ResponseData, head: Head, url: URL, o: HopOptions): Promise<Body> {
  const tooLarge = () => new FetchError("too_large", tooLargeMessage(url.href, o.maxBytes), url.href);
  const encoding = (head.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const declared = Number(head.headers["content-length"]);
  // A declared length over the cap fails before a byte of the body is read.
  if (o.onTooLarge === "error" && encoding === "identity" && Number.isFinite(declared) && declared > o.maxBytes) {
    discard(res.body);
    throw tooLarge();
  }
  try {
    return await readBody(res.body, encoding, { maxBytes: o.maxBytes, onTooLarge: o.onTooLarge, tooLarge });
  } catch (err) {
    discard(res.body);
    throw hopError(err, url, o, (code) =>
      code === "UND_ERR_SOCKET" ? `${url.href} closed the connection mid-response.` : `Reading ${url.href} failed (${code}).`,
    );
  }
}

/**
 * The error a failed hop throws: the deadline or cancellation when the signal fired (undici's
 * own abort error says neither), our own errors as they are, anything else a network error.
 */
function hopError(err: unknown, url: URL, o: HopOptions, message: (code: string) => string): Error {
  if (o.signal.aborted) return o.timeoutError();
  if (err instanceof FetchError || err instanceof UrlPolicyError) return err;
  const e = err as NodeJS.ErrnoException;
  return new FetchError("network", message(e.code ?? e.message), url.href);
}
