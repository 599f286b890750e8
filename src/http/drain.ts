// Reading the rest of a refused request body before answering. A client that writes its whole
// body before reading (Node's own http client, curl with a file, most SDKs) sees a connection reset
// instead of our 413 when the server answers and closes mid-upload. Draining costs bandwidth, so
// it is bounded: past the cap or the deadline the connection is closed as before. A client that
// stops sending for a while is waiting for our answer (a streaming client that reads as it writes),
// so a pause answers at once instead of at the deadline.
import type { IncomingMessage } from "node:http";

export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 15_000;
export const DRAIN_IDLE_MS = 1_000;

/** Resolves once the request body has been read to its end, or the cap, deadline or a pause was passed. */
export function drainRequest(req: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS, idleMs = DRAIN_IDLE_MS): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(idle);
      req.off("data", onData);
      req.off("end", finish);
      req.off("error", finish);
      req.off("close", finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) return finish();
      idle.refresh();
    };
    const timer = setTimeout(finish, maxMs);
    const idle = setTimeout(finish, idleMs);
    req.on("data", onData);
    req.on("end", finish);
    req.on("error", finish);
    req.on("close", finish);
    req.resume();
  });
}
