// The API reference in Markdown, written from the OpenAPI document the server serves at
// /openapi.json: an index of operations, then each operation (parameters, request body, responses,
// the success example) by tag in the document's order, then every named schema as a field table.
// Links between them use the anchors GitHub gives the headings (markdown.ts slug).
import { slug } from "./markdown.js";

type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"];
/** the tenant header every authenticated operation takes; described once under Authentication */
const TENANT_PARAMETER = "#/components/parameters/TenantId";

interface Operation {
  method: string;
  path: string;
  op: Json;
}

export function apiReferenceMarkdown(doc: Json): string {
  const ops = operations(doc);
  const out = [authentication(doc), index(doc, ops)];
  for (const tag of doc.tags as { name: string; description?: string }[]) {
    const inTag = ops.filter((o) => (o.op.tags?.[0] ?? "") === tag.name);
    if (inTag.length === 0) continue;
    out.push(`## ${tag.name}\n\n${tag.description ?? ""}\n`);
    for (const o of inTag) out.push(operation(o));
  }
  out.push(schemas(doc));
  return `${out.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd()}\n`;
}

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries<Json>(doc.paths)) {
    for (const m of METHODS) if (item[m]) out.push({ method: m.toUpperCase(), path: p, op: item[m] });
  }
  return out;
}

const title = (o: Operation) => `${o.method} ${o.path}`;
const opLink = (o: Operation) => `[\`${title(o)}\`](#${slug(`${o.method} ${o.path}`)})`;
const schemaName = (ref: string) => ref.replace("#/components/schemas/", "");
const schemaLink = (ref: string) => `[\`${schemaName(ref)}\`](#${slug(schemaName(ref))})`;
/** a table cell: no line breaks, pipes escaped */
const cell = (s: string) => s.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
const scopeOf = (op: Json): string => op["x-required-scope"] ?? (op.security?.length ? "any" : "none");

function authentication(doc: Json): string {
  const schemes = Object.entries<Json>(doc.components?.securitySchemes ?? {}).map(
    ([name, s]) => `- \`${name}\`: ${s.type === "http" ? `HTTP ${s.scheme}` : `${s.in} \`${s.name}\``}. ${s.description ?? ""}`,
  );
  const tenant = doc.components?.parameters?.TenantId;
  return [
    "## Authentication",
    "",
    doc.info?.description ?? "",
    "",
    ...schemes,
    "",
    tenant ? `Every operation that takes credentials also accepts the \`${tenant.name}\` header: ${tenant.description}` : "",
    "",
  ].join("\n");
}

function index(doc: Json, ops: Operation[]): string {
  const rows = ops.map((o) => `| ${opLink(o)} | ${o.op.tags?.[0] ?? ""} | ${scopeOf(o.op)} | ${cell(o.op.summary ?? "")} |`);
  return ["## Operations", "", "| Operation | Tag | Scope | Summary |", "| --- | --- | --- | --- |", ...rows, ""].join("\n");
}

function operation(o: Operation): string {
  const { op } = o;
  const parts = [`### \`${title(o)}\``, "", `${op.summary ?? ""}`, "", op.description ?? "", ""];
  const scope = /scope/i.test(op.description ?? "") ? "" : ` Scope: ${scopeOf(op)}.`;
  parts.push(`Operation id: \`${op.operationId}\`.${scope}`, "");
  const params = (op.parameters ?? []).filter((p: Json) => p.$ref !== TENANT_PARAMETER);
  if (params.length > 0) {
    parts.push("| Parameter | In | Type | Required | Description |", "| --- | --- | --- | --- | --- |");
    for (const p of params) parts.push(`| \`${p.name}\` | ${p.in} | ${typeOf(p.schema)} | ${p.required ? "yes" : ""} | ${describe(p.schema, p.description)} |`);
    parts.push("");
  }
  for (const [type, content] of Object.entries<Json>(op.requestBody?.content ?? {})) {
    parts.push(`Request body (\`${type}\`${op.requestBody.required ? "" : ", optional"}): ${typeOf(content.schema)}`, "");
    parts.push(...inlineFields("Fields of the request body", content.schema));
    if (content.example !== undefined) parts.push("```json", JSON.stringify(content.example, null, 2), "```", "");
    for (const named of Object.values<Json>(content.examples ?? {})) parts.push(`${named.summary}:`, "", "```json", JSON.stringify(named.value, null, 2), "```", "");
  }
  parts.push(...responses(op));
  return parts.join("\n");
}

function responses(op: Json): string[] {
  const rows = ["| Status | Meaning | Body |", "| --- | --- | --- |"];
  const details: string[] = [];
  let example: { status: string; value: unknown } | null = null;
  for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
    const bodies = Object.entries<Json>(r.content ?? {}).map(([type, c]) => (c.schema ? typeOf(c.schema) : `\`${type}\``));
    rows.push(`| ${status} | ${cell(r.description ?? "")} | ${bodies.join(", ") || "none"} |`);
    const json = r.content?.["application/json"];
    if (json && status.startsWith("2")) {
      details.push(...inlineFields(`Fields of the ${status} body`, json.schema));
      if (example === null && json.example !== undefined) example = { status, value: json.example };
    }
  }
  const out = [...rows, "", ...details];
  if (example) out.push(`Example ${example.status} body:`, "", "```json", JSON.stringify(example.value, null, 2), "```", "");
  return out;
}

/** A field table for a body whose schema is written inline (not a named schema). */
function inlineFields(heading: string, schema: Json | undefined): string[] {
  const inner = schema?.type === "array" ? schema.items : schema;
  if (!inner || inner.$ref || !inner.properties) return [];
  return [`${heading}${schema?.type === "array" ? " (each item)" : ""}:`, "", ...fieldTable(inner), ""];
}

function schemas(doc: Json): string {
  const out = ["## Schemas", ""];
  for (const [name, s] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    out.push(`### \`${name}\``, "");
    if (s.description) out.push(s.description, "");
    if (s.properties) out.push(...fieldTable(s), "");
    else out.push(`${typeOf(s)}${describeConstraints(s) ? ` (${describeConstraints(s)})` : ""}`, "");
  }
  return out.join("\n");
}

function fieldTable(s: Json): string[] {
  return ["| Field | Type | Required | Description |", "| --- | --- | --- | --- |", ...fieldRows(s, "", 0)];
}

/** One row per property; inline objects (and arrays of them) add their own properties as `a.b` / `a[].b`. */
function fieldRows(s: Json, prefix: string, depth: number): string[] {
  const required = new Set<string>(s.required ?? []);
  const rows: string[] = [];
  for (const [name, p] of Object.entries<Json>(s.properties ?? {})) {
    const field = `${prefix}${name}`;
    rows.push(`| \`${field}\` | ${typeOf(p)} | ${required.has(name) ? "yes" : ""} | ${describe(p, p.description)} |`);
    if (depth >= 3) continue;
    if (p.properties) rows.push(...fieldRows(p, `${field}.`, depth + 1));
    else if (p.type === "array" && p.items?.properties) rows.push(...fieldRows(p.items, `${field}[].`, depth + 1));
  }
  return rows;
}

/** The schema's type as a reader names it, with named schemas linked. */
export function typeOf(s: Json | undefined): string {
  if (!s) return "any";
  if (s.$ref) return schemaLink(s.$ref);
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const literals = union.every((u: Json) => u.enum?.length === 1 || u.const !== undefined);
    if (literals) return `string, one of ${union.map((u: Json) => `\`${u.const ?? u.enum[0]}\``).join(", ")}`;
    return [...new Set(union.map((u: Json) => typeOf(u)))].join(" or ");
  }
  if (Array.isArray(s.type)) return s.type.map((t: string) => typeOf({ ...s, type: t })).join(" or ");
  if (s.type === "array") return `array of ${typeOf(s.items)}`;
  if (s.type === "object" && !s.properties && s.additionalProperties && typeof s.additionalProperties === "object") {
    return `object of ${typeOf(s.additionalProperties)}`;
  }
  return s.format ? `${s.type} (${s.format})` : (s.type ?? "any");
}

function describe(s: Json | undefined, description: string | undefined): string {
  const constraints = s ? describeConstraints(s) : "";
  return cell([description, constraints].filter(Boolean).join("; "));
}

/** Limits, allowed values and the default, in words. */
function describeConstraints(s: Json): string {
  const parts: string[] = [];
  if (s.enum && s.enum.length > 0) parts.push(`one of ${s.enum.map((v: unknown) => `\`${String(v)}\``).join(", ")}`);
  const range = (min: unknown, max: unknown, unit: string) => {
    if (min !== undefined && max !== undefined) parts.push(`${min} to ${max}${unit}`);
    else if (min !== undefined) parts.push(`at least ${min}${unit}`);
    else if (max !== undefined) parts.push(`at most ${max}${unit}`);
  };
  range(s.minimum, s.maximum, "");
  range(s.minLength, s.maxLength, " characters");
  range(s.minItems, s.maxItems, " items");
  if (s.pattern) parts.push(`pattern \`${s.pattern}\``);
  if (s.default !== undefined) parts.push(`default \`${JSON.stringify(s.default)}\``);
  return parts.join("; ");
}
