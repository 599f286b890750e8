// One outbound POST under the crawler's URL policy (webhook deliveries): the URL is checked by
// the guard and the connection pinned to the approved addresses, exactly like a crawl's hop.
// Redirects are not followed: a receiver that moved answers with its new URL to fix, not a hop.

import { FetchError } from "./errors.js";
import { createPinnedAgent } from "./fetch-agent.js";
import { requestOnce } from "./fetch-hop.js";
import type { UrlGuard } from "./url-policy.js";

/** How much of a receiver's answer is kept (for the delivery log). */
const ANSWER_BYTES = 2048;

export interface PostResult {
  status: number;
  /** the start of the answer's body, as text */
  body: string;
}

/**
 * Throws UrlPolicyError when the guard refuses the URL, FetchError when the request fails. A
 * connection pool per request: deliveries are few, and nothing is left open between them.
 */
export async function postGuarded(guard: UrlGuard, url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  const signal = AbortSignal.timeout(timeoutMs);
  const checked = await guard.check(url, signal);
  const agent = createPinnedAgent(guard);
  agent.pin(checked.url.hostname, checked.addresses);
  try {
      const res = await requestOnce(checked.url, {
        dispatcher: agent.dispatcher,
        signal,
        method: "POST",
        headers,
        body: Buffer.from(body, "utf8"),
        maxBytes: ANSWER_BYTES,
        onTooLarge: "truncate",
        timeoutError: () => new FetchError("timeout", `${checked.url.href} did not answer within ${timeoutMs} ms.`, checked.url.href),
      });
      return { status: res.status, body: res.body.toString("utf8") };
  } finally {
    agent.destroy();
  }
}
