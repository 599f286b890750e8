// A bad-input corpus generated from the OpenAPI document: for every operation, requests whose
// body, path or query break the schema in one way each (wrong types, out-of-range numbers,
// strings too long or not Unicode, missing and extra fields, nesting, malformed JSON, wrong
// content types, hostile path parameters). Deterministic for a seed.

export interface BadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** what was broken, for the failure message */
  why: string;
}

type Schema = Record<string, any>;

export interface Operation {
  method: string;
  path: string;
  scope: string | null;
  body: Schema | null;
  contentType: string | null;
  /** the required query parameters with their documented examples (`?q=kube`), as a query string */
  query: string;
}

/** Every operation of the document with its resolved JSON body schema. */
export function operations(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(ops)) {
      const content = op.requestBody?.content ?? {};
      const contentType = Object.keys(content)[0] ?? null;
      const body = contentType === "application/json" ? resolve(doc, content[contentType].schema) : null;
      const required = ((op.parameters ?? []) as Schema[]).filter((p) => p.in === "query" && p.required);
      const query = new URLSearchParams(required.map((p) => [p.name, String(p.example ?? p.schema?.example ?? "x")])).toString();
      out.push({ method: method.toUpperCase(), path, scope: op["x-required-scope"] ?? null, body, contentType, query });
    }
  }
  return out;
}

function resolve(doc: Schema, s: Schema | undefined, depth = 0): Schema | null {
  if (!s || depth > 8) return s ?? null;
  if (s.$ref) {
    const name = String(s.$ref).split("/").pop()!;
    return resolve(doc, doc.components?.schemas?.[name], depth + 1);
  }
  if (s.properties) {
    const properties: Schema = {};
    for (const [k, v] of Object.entries<Schema>(s.properties)) properties[k] = resolve(doc, v, depth + 1) ?? {};
    return { ...s, properties };
  }
  return s;
}

/** A value that satisfies the schema well enough to let one other field be the broken one. */
export function sample(s: Schema): unknown {
  if (s.default !== undefined) return s.default;
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const options = s.anyOf ?? s.oneOf;
  if (options) return sample(options.find((o: Schema) => o.type !== "null") ?? options[0]);
  switch (Array.isArray(s.type) ? s.type[0] : s.type) {
    case "string": {
      // an alternation pattern such as ^(upload|website)$ names its valid values
      const choice = typeof s.pattern === "string" ? /^\^\(([^|)]+)[|)]/.exec(s.pattern)?.[1] : undefined;
      if (choice) return choice;
      return s.format === "uri" ? "http://127.0.0.1:9/" : s.format === "email" ? "a@example.com" : "x".repeat(Math.max(1, s.minLength ?? 1));
    }
    case "integer":
    case "number":
      return s.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return s.minItems ? Array.from({ length: s.minItems }, () => sample(s.items ?? {})) : [];
    case "object": {
      const o: Record<string, unknown> = {};
      for (const k of s.required ?? []) o[k] = sample(s.properties?.[k] ?? {});
      return o;
    }
    default:
      return null;
  }
}

const NASTY_VALUES: [string, unknown][] = [
  ["null", null],
  ["a number", 1e308],
  ["a negative number", -1],
  ["a fraction", 0.5],
  ["a boolean", false],
  ["an array", [1, "two", null]],
  ["an object", { nested: { deeper: true } }],
  ["an empty string", ""],
  ["a 100 KB string", "y".repeat(100_000)],
  ["a string with NUL", "a\u0000b"],
  ["a lone surrogate", "a\ud800b"],
  ["markup and SQL", "<script>alert(1)</script>' OR 1=1 --"],
  ["a path traversal", "../../../etc/passwd"],
];

const HOSTILE_IDS = ["x", "../../etc/passwd", "%2e%2e%2f", "col_" + "0".repeat(400), "😀", "null", "1 OR 1=1", "%00", "a%ZZb"];

function fill(path: string, id: string): string {
  return path.replace(/\{[^}]+\}/g, id);
}

/** The corpus for one operation; `goodIds` fills path parameters where only the body is broken. */
export function badRequestsFor(op: Operation, goodIds: (param: string) => string): BadRequest[] {
  const json = { "content-type": "application/json" };
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, p: string) => goodIds(p));
  const out: BadRequest[] = [];
  if (op.path.includes("{")) {
    for (const id of HOSTILE_IDS) out.push({ method: op.method, path: fill(op.path, id), headers: json, body: "{}", why: `path id ${id}` });
  }
  if (op.method === "DELETE") return out; // with good ids it would simply delete: only hostile ids
  out.push({ method: op.method, path: `${path}?limit=-1&cursor=%00&status=%ZZ&collection_id=${"z".repeat(500)}`, headers: {}, why: "hostile query" });
  if (op.method === "GET") return out;
  out.push({ method: op.method, path, headers: json, body: "{not json", why: "malformed JSON" });
  out.push({ method: op.method, path, headers: json, body: "", why: "empty body" });
  out.push({ method: op.method, path, headers: json, body: "[]", why: "array body" });
  out.push({ method: op.method, path, headers: json, body: `${"[".repeat(5000)}${"]".repeat(5000)}`, why: "deep nesting" });
  out.push({ method: op.method, path, headers: { "content-type": "text/plain" }, body: "hello", why: "text/plain body" });
  out.push({ method: op.method, path, headers: { "content-type": "application/json; charset=utf-16" }, body: Buffer.from("{}", "utf16le"), why: "utf-16 body" });
  out.push({ method: op.method, path, headers: { "content-type": "multipart/form-data; boundary=zz" }, body: "--zz\r\nbroken", why: "broken multipart" });
  if (!op.body?.properties) return out;
  const base = sample(op.body) as Record<string, unknown>;
  out.push({ method: op.method, path, headers: json, body: JSON.stringify({ ...base, unexpected_field: 1 }), why: "extra field" });
  for (const [name, schema] of Object.entries<Schema>(op.body.properties)) {
    if ((op.body.required ?? []).includes(name)) {
      const { [name]: _dropped, ...rest } = base;
      out.push({ method: op.method, path, headers: json, body: JSON.stringify(rest), why: `missing ${name}` });
    }
    for (const [label, value] of NASTY_VALUES) {
      out.push({ method: op.method, path, headers: json, body: JSON.stringify({ ...base, [name]: value }), why: `${name} as ${label}` });
    }
    if (schema.type === "string" && schema.maxLength) {
      out.push({ method: op.method, path, headers: json, body: JSON.stringify({ ...base, [name]: "z".repeat(schema.maxLength + 1) }), why: `${name} too long` });
    }
  }
  return out;
}
