// Reading the rest of a refused request body before answering. A client that writes its whole
// body before reading (Node's own http client, curl with a file, most SDKs) sees a connection reset
// instead of our 413 when the server answers and closes mid-upload. Draining costs bandwidth, so
// it is bounded: past the cap or the deadline the connection is closed as before.
import type { IncomingMessage } from "node:http";

export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 15_000;

/** Resolves once the request body has been read to its end, or the cap or deadline was passed. */
export function drainRequest(req: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", finish);
      req.off("error", finish);
      req.off("close", finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish();
    };
    const timer = setTimeout(finish, maxMs);
    req.on("data", onData);
    req.on("end", finish);
    req.on("error", finish);
    req.on("close", finish);
    req.resume();
  });
}
