// Tool definitions in every shape (OpenAI Chat Completions, OpenAI Responses, Anthropic, MCP):
// valid JSON Schema, valid under each provider's strict-mode rules (written out here, not taken
// from the code under test), no unknown top-level keys; served by the API per key scope; and a
// strict-mode call (every field present, null for defaults) runs through POST /tool-calls.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { TOOL_SPECS } from "../../src/http/mcp/catalog.js";
import { toolDefinitions, type ToolFormat } from "../../src/http/openai-tools.js";
import { startServer, type TestServer } from "../kit/index.js";
import { indexedFixture, type AgentFixture } from "./fixtures.js";

type Schema = Record<string, any>;

// OpenAI Structured Outputs, "Supported schemas": these keywords and string formats only.
const OPENAI_KEYWORDS = new Set([
  "type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
  "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
]);
const OPENAI_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
// Anthropic strict tool use: no numerical or string-length constraints, minItems 0 or 1 only.
const ANTHROPIC_KEYWORDS = new Set(["type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs", "pattern", "format", "minItems"]);
const ANTHROPIC_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]);

const TOP_LEVEL: Record<ToolFormat, string[]> = {
  chat_completions: ["type", "function"],
  responses: ["type", "name", "description", "parameters", "strict"],
  anthropic: ["name", "description", "input_schema", "strict"],
  mcp: ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta"],
};
const CHAT_FUNCTION_KEYS = ["name", "description", "parameters", "strict"];

/** Every violation of the strict rules in a schema tree, as readable paths. */
function strictViolations(schema: Schema, keywords: Set<string>, formats: Set<string>, at = "$"): string[] {
  const out: string[] = [];
  for (const k of Object.keys(schema)) if (!keywords.has(k)) out.push(`${at}: keyword '${k}' not supported`);
  if (schema.format && !formats.has(schema.format)) out.push(`${at}: format '${schema.format}' not supported`);
  if (keywords === ANTHROPIC_KEYWORDS && typeof schema.minItems === "number" && schema.minItems > 1) out.push(`${at}: minItems > 1`);
  const types = ([] as string[]).concat(schema.type ?? []);
  if (types.includes("object") || schema.properties) {
    if (schema.additionalProperties !== false) out.push(`${at}: additionalProperties must be false`);
    const props = Object.keys(schema.properties ?? {});
    const required = [...(schema.required ?? [])].sort();
    if (JSON.stringify(required) !== JSON.stringify([...props].sort())) out.push(`${at}: every property must be required`);
    for (const [name, p] of Object.entries(schema.properties ?? {})) out.push(...strictViolations(p as Schema, keywords, formats, `${at}.${name}`));
  }
  if (schema.items) out.push(...strictViolations(schema.items, keywords, formats, `${at}[]`));
  for (const [i, s] of (schema.anyOf ?? []).entries()) out.push(...strictViolations(s, keywords, formats, `${at}.anyOf[${i}]`));
  return out;
}

const ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: true });
ajv.addFormat("uri", true);
ajv.addFormat("date-time", true);

function parametersOf(format: ToolFormat, tool: Schema): Schema {
  if (format === "chat_completions") return tool.function.parameters;
  if (format === "anthropic") return tool.input_schema;
  if (format === "mcp") return tool.inputSchema;
  return tool.parameters;
}

describe("tool definitions in every shape", () => {
  const formats: ToolFormat[] = ["chat_completions", "responses", "anthropic", "mcp"];
  for (const format of formats) {
    it(`${format}: valid JSON Schema, known top-level keys, model-ready descriptions`, () => {
      const tools = toolDefinitions(TOOL_SPECS, format) as Schema[];
      expect(tools.map((t) => (format === "chat_completions" ? t.function.name : t.name))).toEqual(TOOL_SPECS.map((s) => s.name));
      for (const tool of tools) {
        const extra = Object.keys(tool).filter((k) => !TOP_LEVEL[format].includes(k));
        expect(extra, JSON.stringify(tool).slice(0, 80)).toEqual([]);
        if (format === "chat_completions") {
          expect(tool.type).toBe("function");
          expect(Object.keys(tool.function).filter((k) => !CHAT_FUNCTION_KEYS.includes(k))).toEqual([]);
        }
        const name = format === "chat_completions" ? tool.function.name : tool.name;
        expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        const description = format === "chat_completions" ? tool.function.description : tool.description;
        expect(description, `${name} description shows an example call`).toMatch(/Example|Takes no arguments/);
        const params = parametersOf(format, tool);
        expect(params.type, name).toBe("object");
        expect(() => ajv.compile(params), name).not.toThrow();
        for (const [prop, p] of Object.entries<Schema>(params.properties ?? {})) {
          expect(String(p.description ?? "").length, `${name}.${prop} needs a description`).toBeGreaterThan(20);
        }
      }
    });
  }

  it("OpenAI shapes follow strict mode: all required, nullable instead of optional, supported keywords only", () => {
    for (const format of ["chat_completions", "responses"] as const) {
      for (const tool of toolDefinitions(TOOL_SPECS, format) as Schema[]) {
        const strict = format === "chat_completions" ? tool.function.strict : tool.strict;
        expect(strict).toBe(true);
        expect(strictViolations(parametersOf(format, tool), OPENAI_KEYWORDS, OPENAI_FORMATS)).toEqual([]);
      }
    }
  });

  it("the Anthropic shape follows strict tool use rules and moves the limits into descriptions", () => {
    const tools = toolDefinitions(TOOL_SPECS, "anthropic") as Schema[];
    for (const tool of tools) expect(strictViolations(tool.input_schema, ANTHROPIC_KEYWORDS, ANTHROPIC_FORMATS), tool.name).toEqual([]);
    const search = tools.find((t) => t.name === "search")!;
    expect(search.input_schema.properties.top_k.type).toEqual(["integer", "null"]);
    expect(search.input_schema.properties.top_k.description).toMatch(/Limits \(checked by the server\): minimum 1, maximum 50/);
    expect(search.input_schema.properties.query.description).toMatch(/at most 2000 characters/);
  });

  it("MCP entries parse with the SDK's own Tool schema and keep the limits as JSON Schema", () => {
    for (const tool of toolDefinitions(TOOL_SPECS, "mcp") as Schema[]) {
      expect(() => ToolSchema.parse(tool)).not.toThrow();
    }
    const search = (toolDefinitions(TOOL_SPECS, "mcp") as Schema[]).find((t) => t.name === "search")!;
    expect(search.inputSchema.properties.top_k).toMatchObject({ minimum: 1, maximum: 50 });
    expect(search.inputSchema.required).toEqual(["collection_id", "query"]);
    // the checker bites: the plain (non-strict) schema breaks the OpenAI rules in the expected ways
    expect(strictViolations(search.inputSchema, OPENAI_KEYWORDS, OPENAI_FORMATS)).toEqual(
      expect.arrayContaining(["$: every property must be required", "$.query: keyword 'maxLength' not supported", "$.top_k: keyword 'default' not supported"]),
    );
  });
});

describe("tool definitions over HTTP and POST /tool-calls", () => {
  let s: TestServer;
  let fx: AgentFixture;
  beforeAll(async () => {
    s = await startServer({}, { listen: false });
    fx = await indexedFixture(s);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("GET /openai-tools.json keeps the Chat Completions array without non-standard keys, filtered by scope", async () => {
    const read = await s.call("GET", "/openai-tools.json", { key: fx.searchKey });
    expect(read.status).toBe(200);
    expect(read.body.map((t: any) => t.function.name)).toEqual(["list_collections", "search", "retrieve", "get_document", "get_chunk", "suggest"]);
    for (const t of read.body) expect(Object.keys(t).sort()).toEqual(["function", "type"]);
    const ingest = await s.call("GET", "/openai-tools.json", { key: fx.adminKey });
    expect(ingest.body.map((t: any) => t.function.name)).toEqual(expect.arrayContaining(["add_url", "upload_text"]));
  });

  it("serves the other shapes at ?format= and /anthropic-tools.json", async () => {
    const responses = await s.call("GET", "/openai-tools.json?format=responses", { key: fx.searchKey });
    expect(responses.body[0]).toMatchObject({ type: "function", name: "list_collections", strict: true });
    const anthropic = await s.call("GET", "/anthropic-tools.json", { key: fx.searchKey });
    expect(anthropic.body[1].input_schema.required).toEqual(["collection_id", "query", "top_k", "min_score", "collapse_documents", "filter", "semantic_ratio", "typo_tolerance", "facets"]);
    const viaQuery = await s.call("GET", "/openai-tools.json?format=anthropic", { key: fx.searchKey });
    expect(viaQuery.body).toEqual(anthropic.body);
    const bad = await s.call("GET", "/openai-tools.json?format=gemini", { key: fx.searchKey });
    expect(bad.status).toBe(422);
  });

  it("runs a strict-mode tool call (every field, nulls for defaults) and returns text for the model", async () => {
    const r = await s.call("POST", "/tool-calls", {
      key: fx.searchKey,
      json: {
        name: "retrieve",
        arguments: { collection_id: fx.collectionId, query: "gearbox oil interval", top_k: null, max_chunks_per_document: null, context_window: null, max_tokens: null },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.is_error).toBe(false);
    expect(r.body.content).toContain("[1] Turbine gearbox maintenance");
    expect(r.body.structured_content.contexts[0].document_id).toBe(fx.docs["gearbox.md"]);
  });

  it("refuses ingest tools to a search key (403) and reports bad arguments as a tool error", async () => {
    const refused = await s.call("POST", "/tool-calls", {
      key: fx.searchKey,
      json: { name: "add_url", arguments: { url: "https://example.com/" } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/needs the 'ingest' scope/);
    const unknown = await s.call("POST", "/tool-calls", { key: fx.searchKey, json: { name: "nope", arguments: {} } });
    expect(unknown.status).toBe(404);
    const bad = await s.call("POST", "/tool-calls", { key: fx.searchKey, json: { name: "search", arguments: { query: "x" } } });
    expect(bad.status).toBe(200);
    expect(bad.body.is_error).toBe(true);
    expect(bad.body.content).toMatch(/must have required property 'collection_id'/);
    expect((await s.call("POST", "/tool-calls", { key: "wrong", json: { name: "search" } })).status).toBe(401);
  });
});
