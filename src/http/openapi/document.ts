// Finishes the document @fastify/swagger builds from the route schemas: operationIds, the
// contract's descriptions, per-status response descriptions, examples for every request and
// response, servers, the X-Tenant-Id header and tag order (see operations.ts and examples.ts).
import { ERROR_EXAMPLES, NAMED_REQUEST_EXAMPLES, PARAMETER_EXAMPLES, SCHEMA_EXAMPLES } from "./examples.js";
import { OPERATIONS, RESPONSE_DESCRIPTIONS, TAGS, type OperationDoc } from "./operations.js";

type Obj = Record<string, any>;

const METHODS = ["get", "put", "post", "patch", "delete"];
const ERROR_SCHEMAS = new Set(["#/components/schemas/Error", "#/components/schemas/HTTPValidationError"]);

export const TENANT_HEADER_PARAMETER = {
  name: "X-Tenant-Id",
  in: "header",
  required: false,
  description: "Only with the operator's platform key: the id of the tenant to act in. Any other key acts in its own tenant (sending a different tenant id is refused with 400).",
  schema: { type: "string" },
  example: PARAMETER_EXAMPLES["X-Tenant-Id"],
};

/** An example for a (possibly $ref or array) schema, from the named-schema examples. */
function exampleFor(schema: Obj | undefined): unknown {
  if (!schema) return undefined;
  if (typeof schema.$ref === "string") return SCHEMA_EXAMPLES[schema.$ref.split("/").pop()!];
  if (schema.type === "array" && schema.items) {
    const item = exampleFor(schema.items);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}

/** For a route without an OPERATIONS entry yet: "GET /crawl/{job_id}" -> "getCrawlByJobId". */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .flatMap((seg) => (seg.startsWith("{") ? ["by", ...seg.slice(1, -1).split(/[_-]/)] : seg.split(/[^A-Za-z0-9]+/)))
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

function decorateParameters(op: Obj): void {
  for (const p of op.parameters ?? []) {
    if (p.$ref) continue;
    const example = PARAMETER_EXAMPLES[p.name];
    if (example !== undefined) p.example = example;
  }
  if ((op.security ?? []).some((s: Obj) => "bearer" in s)) {
    op.parameters = [...(op.parameters ?? []), { $ref: "#/components/parameters/TenantId" }];
  }
}

function decorateRequestBody(op: Obj): void {
  for (const media of Object.values<Obj>(op.requestBody?.content ?? {})) {
    // a body with several shapes worth showing (a data source of each type) gets named examples
    const named = typeof media.schema?.$ref === "string" ? NAMED_REQUEST_EXAMPLES[media.schema.$ref.split("/").pop()!] : undefined;
    if (named) {
      media.examples = named;
      continue;
    }
    const example = exampleFor(media.schema);
    if (example !== undefined) media.example = example;
  }
}

function decorateResponses(op: Obj, meta: OperationDoc | undefined): void {
  for (const [status, res] of Object.entries<Obj>(op.responses ?? {})) {
    const success = status.startsWith("2");
    const other = meta?.other?.[status];
    // `other` describes any status whose body is not the usual one, a second success status (202) too
    res.description = (other?.description ?? (success ? meta?.ok : RESPONSE_DESCRIPTIONS[status])) ?? res.description;
    for (const media of Object.values<Obj>(res.content ?? {})) {
      const own = other?.example ?? (success && !other ? meta?.example : undefined);
      const example = own ?? (ERROR_SCHEMAS.has(media.schema?.$ref) ? ERROR_EXAMPLES[status] : exampleFor(media.schema));
      if (example !== undefined) media.example = example;
    }
  }
}

export function decorateOpenApi(doc: Obj, opts: { publicUrl: string }): Obj {
  doc.servers = [{ url: opts.publicUrl, description: "This deployment (PUBLIC_URL)" }];
  doc.tags = TAGS;
  // schemas in name order: the document (and the client generated from it) must not depend on
  // the order modules happened to be evaluated in
  const schemas = Object.fromEntries(Object.entries<Obj>(doc.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b, "en")));
  doc.components = { ...doc.components, schemas, parameters: { ...(doc.components?.parameters ?? {}), TenantId: TENANT_HEADER_PARAMETER } };
  for (const [path, item] of Object.entries<Obj>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const meta = OPERATIONS[key];
      op.operationId = meta?.operationId ?? derivedOperationId(method, path);
      if (meta) {
        if (meta.description) op.description = op.description ? `${meta.description}\n\n${op.description}` : meta.description;
      }
      decorateParameters(op);
      decorateRequestBody(op);
      decorateResponses(op, meta);
    }
  }
  return doc;
}
