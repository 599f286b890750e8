// Request bodies are read as UTF-8. A body labelled with another charset (utf-16, latin1, ...)
// would otherwise be decoded wrongly and stored as mojibake, so it is refused with a 415 that
// says what to send instead.
import type { FastifyInstance } from "fastify";
import { ServiceError } from "../services/errors.js";

const UTF8_LABELS = new Set(["utf-8", "utf8", "us-ascii", "ascii"]);

/** The charset parameter of a Content-Type header, lower-cased, or null when absent. */
export function charsetOf(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return m ? m[1].toLowerCase() : null;
}

export function refuseNonUtf8Bodies(app: FastifyInstance): void {
  app.addHook("onRequest", async (req) => {
    const charset = charsetOf(req.headers["content-type"]);
    if (charset && !UTF8_LABELS.has(charset)) {
      throw new ServiceError(
        "unsupported_media_type",
        `The body is labelled charset=${charset}; Quarry reads request bodies as UTF-8. Encode the body as UTF-8 (or drop the charset parameter).`,
      );
    }
  });
}
