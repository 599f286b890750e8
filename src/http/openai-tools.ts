// Tool definitions for each major function-calling API, derived from the one catalogue in
// mcp/catalog.ts. The provider shapes use strict mode, whose rules are narrower than JSON Schema:
// every property required (an optional field becomes nullable: null = "use the default"),
// additionalProperties false on every object, and no keyword the provider does not support.
// A limit a provider cannot express is moved into the field's description, and the server still
// enforces it (a call that breaks it gets an error result that says what to change).
import type { ToolSpec } from "./mcp/catalog.js";
import { mcpTool } from "./mcp/tool-listing.js";

export type ToolFormat = "chat_completions" | "responses" | "anthropic" | "mcp";
export type StrictDialect = "openai" | "anthropic";

type Schema = Record<string, unknown>;

/**
 * Keywords each provider accepts in strict mode (OpenAI Structured Outputs "supported schemas";
 * Anthropic strict tool use: no numeric or length constraints, minItems only 0 or 1).
 */
export const STRICT_KEYWORDS: Record<StrictDialect, ReadonlySet<string>> = {
  openai: new Set([
    "type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
  ]),
  anthropic: new Set(["type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs", "pattern", "format", "minItems"]),
};

/** String formats each provider accepts in strict mode; another format moves into the description. */
export const STRICT_FORMATS: Record<StrictDialect, ReadonlySet<string>> = {
  openai: new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]),
  anthropic: new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]),
};

/** Wording for a constraint that moves into the description. */
function limitNote(key: string, value: unknown): string | null {
  switch (key) {
    case "minLength":
      return value === 1 ? "not empty" : `at least ${String(value)} characters`;
    case "maxLength":
      return `at most ${String(value)} characters`;
    case "minimum":
      return `minimum ${String(value)}`;
    case "maximum":
      return `maximum ${String(value)}`;
    case "minItems":
      return `at least ${String(value)} items`;
    case "maxItems":
      return `at most ${String(value)} items`;
    case "format":
      return value === "uri" ? "an absolute URI" : `format ${String(value)}`;
    default:
      return null;
  }
}

function withNullable(schema: Schema): Schema {
  const t = schema.type;
  if (typeof t === "string") return { ...schema, type: [t, "null"] };
  if (Array.isArray(t)) return t.includes("null") ? schema : { ...schema, type: [...t, "null"] };
  return { anyOf: [schema, { type: "null" }] };
}

/** One schema node in the dialect's strict form; properties are handled by strictObject. */
function strictNode(node: Schema, dialect: StrictDialect): Schema {
  const allowed = STRICT_KEYWORDS[dialect];
  const out: Schema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    const unsupportedFormat = key === "format" && !STRICT_FORMATS[dialect].has(String(value));
    const unsupportedMinItems = key === "minItems" && dialect === "anthropic" && typeof value === "number" && value > 1;
    if (unsupportedFormat || unsupportedMinItems) {
      notes.push(limitNote(key, value)!);
    } else if (allowed.has(key)) {
      out[key] = value;
    } else {
      const note = limitNote(key, value);
      if (note) notes.push(note);
    }
  }
  if (node.type === "object" || node.properties) return strictObject(out, dialect, notes);
  if (out.items && typeof out.items === "object") out.items = strictNode(out.items as Schema, dialect);
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as Schema[]).map((s) => strictNode(s, dialect));
  return describe(out, notes);
}

function describe(schema: Schema, notes: string[]): Schema {
  if (notes.length === 0) return schema;
  const base = typeof schema.description === "string" ? schema.description.trim() : "";
  const sep = base && !/[.!?]$/.test(base) ? ". " : base ? " " : "";
  return { ...schema, description: `${base}${sep}Limits (checked by the server): ${notes.join(", ")}.` };
}

function strictObject(node: Schema, dialect: StrictDialect, notes: string[]): Schema {
  const props = (node.properties ?? {}) as Record<string, Schema>;
  const required = new Set((node.required as string[] | undefined) ?? []);
  const properties: Record<string, Schema> = {};
  for (const [name, prop] of Object.entries(props)) {
    const strict = strictNode(prop, dialect);
    properties[name] = required.has(name) ? strict : withNullable(strict);
  }
  return describe({ ...node, type: "object", properties, required: Object.keys(properties), additionalProperties: false }, notes);
}

/** The catalogue's input schema in a provider's strict form (a fresh object). */
export function strictParameters(spec: ToolSpec, dialect: StrictDialect): Schema {
  const plain = JSON.parse(JSON.stringify(spec.input)) as Schema;
  delete plain.$id;
  return strictNode(plain, dialect);
}

/** OpenAI Chat Completions: `tools: [{ type: "function", function: {...} }]` (the contract's shape). */
export function chatCompletionsTool(spec: ToolSpec) {
  return {
    type: "function" as const,
    function: { name: spec.name, description: spec.description, parameters: strictParameters(spec, "openai"), strict: true },
  };
}

/** OpenAI Responses API: the function fields sit at the top level of the tool. */
export function responsesTool(spec: ToolSpec) {
  return { type: "function" as const, name: spec.name, description: spec.description, parameters: strictParameters(spec, "openai"), strict: true };
}

/** Anthropic Messages API: `input_schema` instead of `parameters`. */
export function anthropicTool(spec: ToolSpec) {
  return { name: spec.name, description: spec.description, input_schema: strictParameters(spec, "anthropic"), strict: true };
}

export function toolDefinitions(specs: readonly ToolSpec[], format: ToolFormat): Record<string, unknown>[] {
  switch (format) {
    case "responses":
      return specs.map(responsesTool);
    case "anthropic":
      return specs.map(anthropicTool);
    case "mcp":
      return specs.map(mcpTool);
    default:
      return specs.map(chatCompletionsTool);
  }
}
