// The one place where errors become HTTP answers. 422 uses FastAPI's shape; every other error is
// {"detail": "<what to change>"}. Unexpected errors are logged and answered with a generic 500.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorObject } from "ajv";
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { MAX_UPLOAD_TEXT } from "../config.js";
import { ServiceError, ValidationError, type ErrorKind, type FieldIssue } from "../services/errors.js";
import { toFieldIssues } from "./validation.js";
import { drainRequest } from "./drain.js";

/** how long a connection answered with a parser error may stay half-open */
const CLOSE_GRACE_MS = 5_000;

const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  quota_exceeded: 429,
  unavailable: 503,
};

function partData(req: FastifyRequest, part: string): unknown {
  if (part === "body") return req.body;
  if (part === "querystring") return req.query;
  if (part === "params") return req.params;
  if (part === "headers") return req.headers;
  return undefined;
}

function sendIssues(reply: FastifyReply, issues: FieldIssue[]) {
  return reply.status(422).send({ detail: issues });
}

// Fastify's own client errors (body parsing, content types, sizes) with details a user can act on.
function frameworkError(err: FastifyError): { status: number; body: unknown } | null {
  switch (err.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return {
        status: 422,
        body: { detail: [{ type: "json_invalid", loc: ["body"], msg: `JSON decode error: ${err.message}`, input: null }] },
      };
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { status: 422, body: { detail: [{ type: "missing", loc: ["body"], msg: "Field required", input: null }] } };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, body: { detail: "The request body is too large. JSON bodies may be at most 4 MB; upload files with POST /documents/upload." } };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { status: 415, body: { detail: "Unsupported Content-Type. Send the body as application/json (uploads: multipart/form-data)." } };
    case "FST_ERR_CTP_INVALID_TYPE":
      return { status: 415, body: { detail: "The Content-Type header is malformed. Send application/json." } };
    default:
      break;
  }
  if (err.code?.startsWith("FST_INVALID_MULTIPART") || err.code === "FST_PARTS_LIMIT" || err.code === "FST_FILES_LIMIT") {
    return { status: 400, body: { detail: `The multipart body could not be read: ${err.message}` } };
  }
  if (err.code === "FST_REQ_FILE_TOO_LARGE") {
    return { status: 413, body: { detail: `A file is larger than ${MAX_UPLOAD_TEXT}, the upload limit. Split it or upload a smaller file.` } };
  }
  return null;
}

/** Errors Node's HTTP parser raises before Fastify sees a request (headers over 16 KB, a
 * malformed request line, a timeout), answered in the same {"detail"} shape as the rest. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  // Bytes after a whole request that do not start another one: mostly a body sent with neither
  // Content-Length nor Transfer-Encoding (Node's http client sends a DELETE body that way), which
  // HTTP/1.1 reads as a request without a body followed by garbage. The request it read is being
  // answered: a second, raw answer written now would reach the client first and the socket would
  // be gone under the real one. Let that answer go out with Connection: close, then close. Not
  // when the pending request itself is incomplete (a broken chunk, a stalled body): the 400 or 408
  // below is its answer.
  const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (pending && !pending.writableEnded && pending.req?.complete) {
    pending.shouldKeepAlive = false;
    pending.once("finish", () => socket.end());
    return;
  }
  const [status, reason, detail] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", "The request headers are too large (16 KB in all at most). Send fewer or shorter headers."]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "The request did not arrive in time. Send it again."]
        : [400, "Bad Request", "The HTTP request is malformed. Check the request line and headers."];
  const body = JSON.stringify({ detail });
  if (!socket.writable) return void socket.destroy(err);
  // end, not destroy: closing at once while unread bytes wait would send a reset that can overtake
  // the answer. The timer closes it for a client that never closes its side.
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/** Errors the router raises before any route runs (a percent-escape that does not decode, a path
 * parameter longer than any id can be), in the same {"detail"} shape. */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH") {
    void reply.status(404).send({ detail: "Nothing here has an id that long. Check the id in the URL." });
  } else if (err.code === "FST_ERR_BAD_URL") {
    void reply.status(400).send({ detail: "The URL has a percent-escape (%XX) that does not decode. Encode path segments with encodeURIComponent." });
  } else {
    reply.log.error({ err }, "router error");
    void reply.status(500).send({ detail: "Internal error. It has been logged; try again, and report it if it persists." });
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    if (err.validation) {
      const part = err.validationContext ?? "body";
      return sendIssues(reply, toFieldIssues(err.validation as ErrorObject[], part, partData(req, part)));
    }
    if (err instanceof ValidationError) return sendIssues(reply, err.issues);
    if (err instanceof ServiceError) {
      if (err.kind === "unauthorized") reply.header("www-authenticate", 'Bearer realm="quarry"');
      if (err.kind === "payload_too_large") await drainRequest(req.raw);
      return reply.status(STATUS[err.kind]).send({ detail: err.message });
    }
    const mapped = frameworkError(err);
    if (mapped) {
      // read what the client is still sending, so it gets the 413 rather than a reset
      if (mapped.status === 413) await drainRequest(req.raw);
      return reply.status(mapped.status).send(mapped.body);
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send({ detail: err.message });
    }
    req.log.error({ err }, "unhandled error");
    return reply.status(500).send({ detail: "Internal error. It has been logged; try again, and report it if it persists." });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ detail: `No endpoint ${req.method} ${req.url.split("?")[0]}. The API is described at /docs and /openapi.json.` });
  });
}
