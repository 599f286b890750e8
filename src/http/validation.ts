// Request validation with two Ajv instances: bodies are strict (no type coercion, unknown fields
// refused), while path and query strings are coerced because they arrive as text. Errors are
// reported in FastAPI's 422 shape, which the contract adopts.
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { TSchema } from "@sinclair/typebox";
import type { FieldIssue } from "../services/errors.js";

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped once more.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? "array" : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

export interface AjvPair {
  bodyAjv: Ajv;
  textAjv: Ajv;
}

/** The two instances with the shared schemas added; lazy-schemas.ts keeps one pair per process. */
export function createAjvPair(sharedSchemas: TSchema[]): AjvPair {
  const pair = { bodyAjv: makeAjv(false), textAjv: makeAjv(true) };
  for (const s of sharedSchemas) {
    pair.bodyAjv.addSchema(s);
    pair.textAjv.addSchema(s);
  }
  return pair;
}

/** One app's validators, compiled on first use by the pair (Ajv keeps what it compiled by schema object). */
export function createValidators({ bodyAjv, textAjv }: AjvPair) {
  const pending = new Set<() => ValidateFunction>();
  return {
    compile(schema: TSchema, httpPart: string | undefined): ValidateFunction {
      const ajv = httpPart === "body" ? bodyAjv : textAjv;
      return compiledOnFirstUse(pending, () => {
        const validate = ajv.compile(schema);
        return httpPart === "headers" ? validate : guarded(validate);
      });
    },
    /** compiles every validator not compiled yet (a test's check that every schema compiles) */
    compileAll(): number {
      const todo = [...pending];
      for (const get of todo) get();
      return todo.length;
    },
  };
}

/**
 * A validator compiled the first time a request reaches its route: Fastify compiles every route's
 * schemas when a server starts, most of them for routes a process never answers (a worker's health
 * port, a test's server). Fastify hands the parent object (so Ajv can apply defaults and coercion
 * to the root value) to any function with a `schemaEnv`, which this one always has; it passes it on.
 */
function compiledOnFirstUse(pending: Set<() => ValidateFunction>, compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const get = () => {
    if (validate) return validate;
    pending.delete(get);
    return (validate = compile());
  };
  pending.add(get);
  const check = ((data: unknown, ctx?: Parameters<ValidateFunction>[1]) => {
    const validate = get();
    const ok = validate(data, ctx);
    check.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  return Object.assign(check, { schemaEnv: {} as ValidateFunction["schemaEnv"] });
}

/** Deepest nesting accepted in request data. Deeper structures are refused before the schema
 * runs, so nothing downstream (validation, echoing `input`, JSON.stringify into storage) can
 * run out of stack on a hostile body. */
export const MAX_DEPTH = 64;

/** NUL characters (which PostgreSQL text cannot hold), lone UTF-16 surrogates (not Unicode: they
 * cannot be stored or sent as UTF-8 without being silently replaced) and nesting beyond
 * MAX_DEPTH, found without recursion; reported as Ajv-style errors with the keywords `nul`,
 * `surrogate` and `depth`. */
function findBadValues(data: unknown): ErrorObject[] {
  const out: ErrorObject[] = [];
  const fail = (keyword: string, instancePath: string, params: Record<string, unknown> = {}): ErrorObject => ({
    keyword,
    instancePath,
    schemaPath: "",
    params,
  });
  const stack: [unknown, string, number][] = [[data, "", 0]];
  const seen = new WeakSet<object>();
  while (stack.length > 0 && out.length < 20) {
    const [v, at, depth] = stack.pop()!;
    if (typeof v === "string") {
      const bad = badText(v);
      if (bad) out.push(fail(bad, at, { value: v }));
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    // parsed JSON and query strings only; never walk bytes, streams or a structure twice
    if (ArrayBuffer.isView(v) || typeof (v as { pipe?: unknown }).pipe === "function" || seen.has(v)) continue;
    seen.add(v);
    if (depth >= MAX_DEPTH) {
      out.push(fail("depth", at));
      continue;
    }
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i];
      const childAt = `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      const bad = badText(k);
      if (bad) out.push(fail(bad, childAt, { value: k }));
      stack.push([child, childAt, depth + 1]);
    }
  }
  return out;
}

// String.prototype.isWellFormed/toWellFormed exist in Node 20 (ES2024) but not in the ES2023 lib.
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
const wellFormed = (v: string) => v as unknown as WellFormed;

function badText(v: string): "nul" | "surrogate" | null {
  if (v.includes("\u0000")) return "nul";
  return wellFormed(v).isWellFormed() ? null : "surrogate";
}

function guarded(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown, ctx?: Parameters<ValidateFunction>[1]) => {
    const bad = findBadValues(data);
    if (bad.length > 0) {
      check.errors = bad;
      return false;
    }
    const ok = validate(data, ctx);
    check.errors = validate.errors;
    return ok;
  }) as ValidateFunction;
  // Fastify passes the parent object only to functions that look like Ajv's, which lets Ajv
  // apply defaults and coercion to the root value.
  return Object.assign(check, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

const PART: Record<string, string> = { body: "body", querystring: "query", params: "path", headers: "header" };

function pointerToLoc(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

function valueAt(root: unknown, loc: (string | number)[]): unknown {
  let v: unknown = root;
  for (const k of loc) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ["string_type", "Input should be a valid string"],
  integer: ["int_type", "Input should be a valid integer"],
  number: ["float_type", "Input should be a valid number"],
  boolean: ["bool_type", "Input should be a valid boolean"],
  array: ["list_type", "Input should be a valid list"],
  object: ["model_type", "Input should be a valid dictionary or object"],
  null: ["none_required", "Input should be None"],
};

/** One Ajv error -> one FastAPI-style item, with the offending value as `input`. */
export function toFieldIssue(e: ErrorObject, part: string, data: unknown): FieldIssue {
  const base = pointerToLoc(e.instancePath);
  const loc: (string | number)[] = [PART[part] ?? part, ...base];
  const input = valueAt(data, base);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return { type: "missing", loc: [...loc, String(p.missingProperty)], msg: "Field required", input: input ?? null };
    case "additionalProperties": {
      const name = String(p.additionalProperty);
      return {
        type: "extra_forbidden",
        loc: [...loc, name],
        msg: "Extra inputs are not permitted",
        input: valueAt(input, [name]) ?? null,
      };
    }
    case "type": {
      const t = Array.isArray(p.type) ? String(p.type[0]) : String(p.type);
      const [type, msg] = TYPE_NAMES[t] ?? ["type_error", `Input should be of type ${t}`];
      if (base.length === 0 && part === "body" && (input === undefined || input === null)) {
        return { type: "missing", loc, msg: "Field required", input: null };
      }
      return { type, loc, msg, input };
    }
    case "minLength":
      return { type: "string_too_short", loc, msg: `String should have at least ${p.limit} character${p.limit === 1 ? "" : "s"}`, input };
    case "maxLength":
      return { type: "string_too_long", loc, msg: `String should have at most ${p.limit} characters`, input };
    case "minimum":
      return { type: "greater_than_equal", loc, msg: `Input should be greater than or equal to ${p.limit}`, input };
    case "maximum":
      return { type: "less_than_equal", loc, msg: `Input should be less than or equal to ${p.limit}`, input };
    case "exclusiveMinimum":
      return { type: "greater_than", loc, msg: `Input should be greater than ${p.limit}`, input };
    case "exclusiveMaximum":
      return { type: "less_than", loc, msg: `Input should be less than ${p.limit}`, input };
    case "pattern":
      return { type: "string_pattern_mismatch", loc, msg: `String should match pattern '${p.pattern}'`, input };
    case "minItems":
      return { type: "too_short", loc, msg: `List should have at least ${p.limit} item${p.limit === 1 ? "" : "s"}`, input };
    case "maxItems":
      return { type: "too_long", loc, msg: `List should have at most ${p.limit} items`, input };
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(", ");
      return { type: "enum", loc, msg: `Input should be one of ${allowed}`, input };
    }
    case "const":
      return { type: "literal_error", loc, msg: `Input should be '${String(p.allowedValue)}'`, input };
    case "format":
      return p.format === "uri"
        ? { type: "url_parsing", loc, msg: "Input should be a valid URL (absolute, with scheme)", input }
        : { type: `${String(p.format)}_parsing`, loc, msg: `Input should be a valid ${String(p.format)}`, input };
    case "nul":
      return { type: "string_nul_character", loc, msg: "Text must not contain NUL characters (\\u0000)", input: p.value };
    case "surrogate":
      return {
        type: "string_unicode",
        loc,
        msg: "Text must be valid Unicode: it contains a lone UTF-16 surrogate (an emoji or other character cut in half). Send whole characters.",
        input: wellFormed(String(p.value)).toWellFormed(),
      };
    case "depth":
      return { type: "json_too_deep", loc, msg: `Value is nested more than ${MAX_DEPTH} levels deep`, input: null };
    default:
      return { type: e.keyword, loc, msg: e.message ?? "Invalid value", input };
  }
}

/** Ajv reports a failing anyOf both per branch and as a whole; keep the useful items only. */
export function toFieldIssues(errors: ErrorObject[], part: string, data: unknown): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  for (const e of errors) {
    if (e.keyword === "anyOf" || e.keyword === "oneOf" || e.keyword === "if") continue;
    const issue = toFieldIssue(e, part, data);
    const key = `${issue.loc.join("\u0000")}|${issue.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
  }
  return out;
}
