// Reading a response body: decompressed while streaming and counted after decompression, so a
// small gzip bomb is stopped at the cap like any other oversized page.

import { pipeline, type Readable, type Transform } from "node:stream";
import zlib from "node:zlib";

export interface BodyCap {
  maxBytes: number;
  /** "error": over the cap throws tooLarge(); "truncate": keeps the first maxBytes */
  onTooLarge: "error" | "truncate";
  tooLarge: () => Error;
}

export interface Body {
  body: Buffer;
  truncated: boolean;
}

/** The decoder for a Content-Encoding, or null to take the bytes as they are (identity, unknown). */
function decoderFor(encoding: string): Transform | null {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.createGunzip();
  if (encoding === "deflate") return zlib.createInflate();
  if (encoding === "br") return zlib.createBrotliDecompress();
  return null;
}

/**
 * Reads `raw` (decoded per `encoding`) up to the cap. Stopping early destroys the stream, which
 * makes undici drop the connection instead of downloading the rest.
 */
export async function readBody(raw: Readable, encoding: string, cap: BodyCap): Promise<Body> {
  const decoder = decoderFor(encoding);
  // pipeline destroys both streams when either fails, so a socket error surfaces in the loop below
  const stream: Readable = decoder ? pipeline(raw, decoder, () => undefined) : raw;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > cap.maxBytes) {
      discard(raw);
      if (cap.onTooLarge === "error") throw cap.tooLarge();
      chunks.push(chunk.subarray(0, cap.maxBytes - size));
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/**
 * Stops reading a body. undici reports a body destroyed before its end as an error on the stream;
 * nobody is listening by then, so the error is swallowed here rather than crashing the process.
 */
export function discard(body: Readable): void {
  body.on("error", () => undefined);
  body.destroy();
}

export function tooLargeMessage(url: string, maxBytes: number): string {
  return `${url} is larger than the page size limit of ${formatBytes(maxBytes)}; it was skipped.`;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
