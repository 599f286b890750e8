// The two ways a test talks to the app: Fastify's inject() (no socket, the default of useServer)
// and fetch over a real loopback socket (crawls, SSE, MCP, raw HTTP need one). Both answer the same
// { status, body, headers } so a test reads the same either way.
import type { App } from "../../src/http/app.js";

export interface CallOptions {
  key?: string | null;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  cookie?: string;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Headers;
}

export type Call = (method: string, path: string, opts?: CallOptions) => Promise<CallResult>;

function requestHeaders(o: CallOptions): Record<string, string> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.cookie) headers.cookie = o.cookie;
  if (o.json !== undefined) headers["content-type"] = "application/json";
  return headers;
}

function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text; // not JSON: keep the text
  }
}

export function fetchCaller(url: string): Call {
  return async (method, p, o = {}) => {
    const body = o.json !== undefined ? JSON.stringify(o.json) : o.body;
    const res = await fetch(url + p, { method, headers: requestHeaders(o), body });
    return { status: res.status, body: parseBody(await res.text()), headers: res.headers };
  };
}

/**
 * Serializes a fetch body (FormData, Blob, bytes, text) the way fetch would, through a Request,
 * so a multipart upload reaches inject() with its boundary in the content type.
 */
async function injectPayload(method: string, o: CallOptions, headers: Record<string, string>): Promise<Buffer | string | undefined> {
  if (o.json !== undefined) return JSON.stringify(o.json);
  if (o.body === undefined || o.body === null) return undefined;
  const req = new Request("http://inject.test/", { method, headers, body: o.body });
  const type = req.headers.get("content-type");
  if (type && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = type;
  return Buffer.from(await req.arrayBuffer());
}

function responseHeaders(raw: Record<string, string | string[] | number | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, String(v));
  }
  return headers;
}

export function injectCaller(app: App): Call {
  return async (method, p, o = {}) => {
    const headers = requestHeaders(o);
    const payload = await injectPayload(method, o, headers);
    const res = await app.inject({ method: method as "GET", url: p, headers, payload });
    return { status: res.statusCode, body: parseBody(res.body), headers: responseHeaders(res.headers) };
  };
}
