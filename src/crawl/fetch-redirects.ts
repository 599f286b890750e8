// Redirects, followed by the fetcher's own loop one hop at a time so the URL guard sees each hop:
// where the next hop goes, when to give up, and how the request changes on the way.

import { FetchError } from "./errors.js";

export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** The request as it moves along redirect hops; a redirect may change method, body and headers. */
export interface HopRequest {
  method: string;
  body: Buffer | undefined;
  headers: Record<string, string>;
}

export interface RedirectTrail {
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
export function followRedirect(trail: RedirectTrail, from: URL, status: number, location: string, hop: HopRequest): string {
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
  adjustForRedirect(hop, status, from, next);
  return next.href;
}

function adjustForRedirect(hop: HopRequest, status: number, from: URL, next: URL): void {
  // Browser semantics: 303 always, and 301/302 after POST, continue as GET without a body.
  if (status === 303 || ((status === 301 || status === 302) && hop.method === "POST")) {
    hop.method = hop.method === "HEAD" ? "HEAD" : "GET";
    hop.body = undefined;
    hop.headers = omit(hop.headers, ["content-type", "content-length"]);
  }
  // credentials never follow a redirect to another origin
  if (next.origin !== from.origin) hop.headers = omit(hop.headers, ["cookie", "authorization"]);
}

export function omit(h: Record<string, string>, names: string[]): Record<string, string> {
  const out = { ...h };
  for (const n of names) delete out[n];
  return out;
}
