// Typed client for the Quarry search service: openapi-fetch over the types openapi-typescript
// generates from Quarry's OpenAPI document (src/schema.ts). Every path, body, parameter and
// response is typed; `data` is set on success and `error` (the API's `{ detail }`) otherwise.
import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
/** The API's named schemas: `Schemas["SearchResponse"]`, `Schemas["CollectionOut"]`, ... */
export type Schemas = components["schemas"];
export type QuarryClient = Client<paths>;

export interface QuarryClientOptions {
  /** where the server runs, e.g. "http://127.0.0.1:8000" */
  baseUrl: string;
  /** an API key; its scope decides what the client may do */
  apiKey: string;
  /** only with the operator's platform key: the tenant to act in */
  tenantId?: string;
  /** a custom fetch (tests, proxies, retries) */
  fetch?: typeof globalThis.fetch;
}

export function createQuarryClient(opts: QuarryClientOptions): QuarryClient {
  const headers: Record<string, string> = { authorization: `Bearer ${opts.apiKey}` };
  if (opts.tenantId) headers["x-tenant-id"] = opts.tenantId;
  return createClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ""), headers, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
}

export interface UploadFile {
  name: string;
  content: Blob | Uint8Array | string;
  type?: string;
}

/** POST /documents/upload with a multipart body built from in-memory files. */
export async function uploadFiles(client: QuarryClient, dataSourceId: string, files: UploadFile[]) {
  return client.POST("/documents/upload", {
    body: { data_source_id: dataSourceId, files: files.map((f) => f.name) },
    bodySerializer: () => {
      const form = new FormData();
      form.append("data_source_id", dataSourceId);
      for (const f of files) {
        const blob = f.content instanceof Blob ? f.content : new Blob([typeof f.content === "string" ? f.content : new Uint8Array(f.content)], { type: f.type ?? "application/octet-stream" });
        form.append("files", blob, f.name);
      }
      return form;
    },
  });
}

/**
 * Polls GET /documents until no document of the source is queued or processing; returns them.
 * Indexing runs in the background after an upload or during a crawl.
 */
export async function waitUntilIndexed(
  client: QuarryClient,
  dataSourceId: string,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Schemas["DocumentOut"][]> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    const { data, error } = await client.GET("/documents", { params: { query: { data_source_id: dataSourceId } } });
    if (error) throw new Error(`listing documents failed: ${JSON.stringify(error)}`);
    if (data.every((d) => d.status !== "queued" && d.status !== "processing")) return data;
    if (Date.now() > deadline) throw new Error(`documents still being indexed after ${opts.timeoutMs ?? 120_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 250));
  }
}
