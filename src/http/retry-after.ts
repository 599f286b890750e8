import type { FastifyReply } from "fastify";
import { ThrottledError } from "../services/accounts/accounts.js";

/** Throttle answers carry Retry-After so clients need not parse the detail. */
export async function withRetryAfter<T>(reply: FastifyReply, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof ThrottledError) reply.header("retry-after", String(err.retryAfterSeconds));
    throw err;
  }
}
