// The MCP server through the MCP SDK's own client: over Streamable HTTP at /mcp and over stdio
// (`quarry mcp --url --key`, a subprocess forwarding to the running server), against a real
// indexed collection; scopes and wrong keys.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PLATFORM_KEY, startServer, type TestServer } from "../kit/index.js";
import { indexedFixture, type AgentFixture } from "./fixtures.js";
import { newSearchKey } from "../../src/store/analytics-codec.js";
import { quarryCommand } from "../helpers/server-build.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const READ_TOOLS = ["get_chunk", "get_document", "list_collections", "retrieve", "search", "suggest"];
const INGEST_TOOLS = ["add_url", "upload_text"];

let s: TestServer;
let fx: AgentFixture;

beforeAll(async () => {
  s = await startServer();
  fx = await indexedFixture(s);
});
afterAll(async () => {
  await s?.close();
});

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: "quarry-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", s.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

/** `quarry mcp` on stdio against the test server, with this key (the run's build) */
function stdioTransport(key: string): StdioClientTransport {
  const [node, cli] = quarryCommand();
  return new StdioClientTransport({ command: node, args: [cli, "mcp", "--url", s.url, "--key", key], cwd: ROOT, stderr: "pipe" });
}

async function stdioClient(key: string): Promise<Client> {
  const client = new Client({ name: "quarry-test-stdio", version: "1.0.0" });
  await client.connect(stdioTransport(key));
  return client;
}

const textOf = (r: any): string => r.content.filter((c: any) => c.type === "text").map((c: any) => c.text).join("\n");

/** The scenario both transports must pass with a search-scope key. */
async function readScenario(client: Client) {
  const tools = (await client.listTools()).tools;
  expect(tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
  for (const t of tools) {
    expect(t.description!.length, t.name).toBeGreaterThan(80);
    expect(t.inputSchema.type).toBe("object");
    expect(t.annotations?.readOnlyHint, t.name).toBe(true);
  }

  const listed = await client.callTool({ name: "list_collections", arguments: {} });
  expect(listed.isError).toBeFalsy();
  expect(textOf(listed)).toContain(fx.collectionId);
  expect((listed.structuredContent as any).collections.map((c: any) => c.id)).toEqual([fx.collectionId]);

  const found = await client.callTool({ name: "search", arguments: { collection_id: fx.collectionId, query: "gearbox lubrication interval", top_k: 3 } });
  expect(found.isError).toBeFalsy();
  const hits = (found.structuredContent as any).results;
  expect(hits[0].document_id).toBe(fx.docs["gearbox.md"]);
  expect(textOf(found)).toMatch(/^\d+ of \d+ results/);
  expect(textOf(found).split("\n")[1]).toContain("Turbine gearbox maintenance");
  // min_score reaches the search: every hit at or above it, and a threshold above the best hit's
  // score leaves none
  const all = (found.structuredContent as any).results as { score: number }[];
  const threshold = all[all.length - 1]!.score + 1e-6;
  const strong = await client.callTool({ name: "search", arguments: { collection_id: fx.collectionId, query: "gearbox lubrication interval", top_k: 3, min_score: threshold } });
  const kept = (strong.structuredContent as any).results as { score: number }[];
  expect(kept.length).toBeLessThan(all.length);
  expect(kept.every((h) => h.score >= threshold)).toBe(true);
  expect(all[0]!.score).toBeLessThan(1); // so a threshold just above it exists
  const none = await client.callTool({ name: "retrieve", arguments: { collection_id: fx.collectionId, query: "gearbox lubrication interval", min_score: Math.min(1, all[0]!.score + 1e-6) } });
  expect((none.structuredContent as any).contexts).toHaveLength(0);

  const grounded = await client.callTool({
    name: "retrieve",
    // strict-mode callers send null for "default": accepted as absent
    arguments: { collection_id: fx.collectionId, query: "how often is gearbox oil changed", top_k: 2, max_tokens: null, context_window: null },
  });
  expect(grounded.isError).toBeFalsy();
  const structured = grounded.structuredContent as any;
  expect(structured.contexts[0].document_id).toBe(fx.docs["gearbox.md"]);
  expect(structured.contexts[0].citation).toBe(1);
  expect(textOf(grounded)).toContain("[1] Turbine gearbox maintenance");
  expect(textOf(grounded)).toContain("2000 operating hours");
  expect(textOf(grounded)).toContain(`[1] document_id ${fx.docs["gearbox.md"]}, positions ${structured.contexts[0].position}`);

  const chunk = await client.callTool({ name: "get_chunk", arguments: { document_id: structured.contexts[0].document_id, position: structured.contexts[0].position } });
  expect(textOf(chunk)).toContain("2000 operating hours");
  const doc = await client.callTool({ name: "get_document", arguments: { document_id: fx.docs["pasta.md"] } });
  expect(textOf(doc)).toContain("spaghetti");

  // a search-scope key is refused the ingest tools even when it names one
  await expect(client.callTool({ name: "upload_text", arguments: { collection_id: fx.collectionId, title: "x", text: "y" } })).rejects.toThrow(
    /needs the 'ingest' scope/,
  );
}

describe("MCP over Streamable HTTP", () => {
  it("serves the read tools to a search key and answers from the indexed collection", async () => {
    const client = await httpClient(fx.searchKey);
    expect(client.getServerVersion()?.name).toBe("quarry");
    expect(client.getInstructions()).toContain("list_collections");
    await readScenario(client);
    await client.close();
  });

  it("suggests completions: the collection's popular queries first, then its words", async () => {
    const client = await httpClient(fx.searchKey);
    const words = await client.callTool({ name: "suggest", arguments: { collection_id: fx.collectionId, prefix: "gearbox lubr" } });
    expect(words.isError).toBeFalsy();
    expect((words.structuredContent as { suggestions: string[] }).suggestions).toEqual(["gearbox lubrication"]);
    // a query that found results 3 times on each of 2 days is popular (popular-queries.ts)
    const at = (day: number, i: number) => Date.now() - day * 86_400_000 - i - 1;
    const logged = [1, 2].flatMap((day) => [0, 1, 2].map((i) => ({
      id: newSearchKey(at(day, i)), tenant_id: fx.tenantId, collection_id: fx.collectionId, at: at(day, i), kind: "search" as const, origin: "mcp" as const,
      query: "gearbox oil interval", mode: "hybrid", filter: null, hits: 2, top_score: 0.8, top: [], took_ms: 5, actor: null,
    })));
    await s.rt.store.analytics.recordSearches(logged, 0.3);
    const both = await client.callTool({ name: "suggest", arguments: { collection_id: fx.collectionId, prefix: "gearbox ", limit: 3 } });
    expect((both.structuredContent as { suggestions: string[] }).suggestions[0]).toBe("gearbox oil interval");
    expect(textOf(both)).toContain("1. gearbox oil interval");
    const none = await client.callTool({ name: "suggest", arguments: { collection_id: fx.collectionId, prefix: "zzzq" } });
    expect(textOf(none)).toContain("No suggestions");
    // bad arguments and another workspace's collection come back as tool errors the model can act on
    const bad = await client.callTool({ name: "suggest", arguments: { collection_id: fx.collectionId, prefix: "", limit: 50 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/prefix.*limit|limit.*prefix/s);
    const missing = await client.callTool({ name: "suggest", arguments: { collection_id: "col_nope", prefix: "gear" } });
    expect(missing.isError).toBe(true);
    await client.close();
  });

  it("refuses a wrong key with 401 before any MCP message is handled", async () => {
    const client = new Client({ name: "bad", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", s.url), { requestInit: { headers: { authorization: "Bearer not-a-key" } } });
    await expect(client.connect(transport)).rejects.toThrow(/401|not valid/);
    const raw = await s.call("POST", "/mcp", {
      json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(raw.status).toBe(401);
    expect(raw.body.detail).toMatch(/Credentials are missing/);
  });

  it("gives an ingest key the ingest tools, and upload_text makes a searchable document", async () => {
    const client = await httpClient(fx.adminKey);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining([...READ_TOOLS, ...INGEST_TOOLS]));
    const added = await client.callTool({
      name: "upload_text",
      arguments: { collection_id: fx.collectionId, title: "Volcano notes", text: "# Volcanoes\n\nBasaltic lava from shield volcanoes flows far before it cools." },
    });
    expect(added.isError, textOf(added)).toBeFalsy();
    const docId = (added.structuredContent as any).id;
    const deadline = Date.now() + 30_000;
    let first = "";
    while (Date.now() < deadline) {
      const r = await client.callTool({ name: "search", arguments: { collection_id: fx.collectionId, query: "basaltic lava shield volcano" } });
      first = (r.structuredContent as any).results[0]?.document_id ?? "";
      if (first === docId) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    expect(first).toBe(docId);
    // a second upload with the same title reuses the agent source and replaces the document
    const again = await client.callTool({ name: "upload_text", arguments: { collection_id: fx.collectionId, title: "Volcano notes", text: "Updated." } });
    expect((again.structuredContent as any).data_source_id).toBe((added.structuredContent as any).data_source_id);
    expect((again.structuredContent as any).id).toBe(docId);
    await client.close();
  });

  it("returns tool errors the model can act on instead of failing the call", async () => {
    const client = await httpClient(fx.searchKey);
    const missing = await client.callTool({ name: "search", arguments: { collection_id: "col_nope", query: "x" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/Collection 'col_nope' was not found/);
    const invalid = await client.callTool({ name: "search", arguments: { collection_id: fx.collectionId, query: "x", top_k: 500 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/top_k: must be <= 50/);
    await expect(client.callTool({ name: "drop_tables", arguments: {} })).rejects.toThrow(/Unknown tool 'drop_tables'/);
    const notJson = await client.callTool({ name: "search", arguments: { collection_id: fx.collectionId, query: "x", filter: "product = cli" } });
    expect(notJson.isError).toBe(true);
    expect(textOf(notJson)).toMatch(/filter is not valid JSON/);
    const badField = await client.callTool({ name: "retrieve", arguments: { collection_id: fx.collectionId, query: "x", filter: '{"colour": "red"}' } });
    expect(badField.isError).toBe(true);
    expect(textOf(badField)).toMatch(/body\.filter\.colour: Unknown field/);
    await client.close();
  });

  it("takes a filter, a blend, typo tolerance and facets in the search tools", async () => {
    const client = await httpClient(fx.searchKey);
    const args = { collection_id: fx.collectionId, query: "gearbox lubrication interval", semantic_ratio: 0 };
    const all = await client.callTool({ name: "search", arguments: { ...args, facets: ["file_type"] } });
    expect(all.isError).toBeFalsy();
    const hits = (all.structuredContent as any).results as { document_id: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(textOf(all)).toMatch(/Facet file_type: /);
    const none = await client.callTool({ name: "search", arguments: { ...args, filter: JSON.stringify({ document_id: { $nin: hits.map((h) => h.document_id) } }) } });
    expect(((none.structuredContent as any).results as { document_id: string }[]).some((h) => hits.some((x) => x.document_id === h.document_id))).toBe(false);
    const one = await client.callTool({ name: "retrieve", arguments: { ...args, filter: JSON.stringify({ document_id: hits[0]!.document_id }) } });
    expect(((one.structuredContent as any).contexts as { document_id: string }[]).every((c) => c.document_id === hits[0]!.document_id)).toBe(true);
    // a misspelt keyword is found unless typo tolerance is turned off
    const misspelt = { ...args, query: "lubricaton" };
    expect(((await client.callTool({ name: "search", arguments: misspelt })).structuredContent as any).results.length).toBeGreaterThan(0);
    expect(((await client.callTool({ name: "search", arguments: { ...misspelt, typo_tolerance: false } })).structuredContent as any).results).toEqual([]);
    await client.close();
  });

  it("exposes collections and documents as resources", async () => {
    const client = await httpClient(fx.searchKey);
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["quarry://collections", `quarry://collections/${fx.collectionId}`]));
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(["quarry://collections/{collection_id}", "quarry://documents/{document_id}"]),
    );
    const col = await client.readResource({ uri: `quarry://collections/${fx.collectionId}` });
    const body = JSON.parse((col.contents[0] as any).text);
    expect(body.documents.map((d: any) => d.id)).toEqual(expect.arrayContaining(Object.values(fx.docs)));
    const doc = await client.readResource({ uri: `quarry://documents/${fx.docs["cats.md"]}` });
    expect((doc.contents[0] as any).text).toContain("obligate carnivores");
    await expect(client.readResource({ uri: "quarry://documents/doc_missing" })).rejects.toThrow(/not found/);
    await client.close();
  });

  it("lets the platform key act inside a tenant named by X-Tenant-Id, as REST does", async () => {
    const client = new Client({ name: "operator", version: "1.0.0" });
    const headers = { authorization: `Bearer ${PLATFORM_KEY}`, "x-tenant-id": fx.tenantId };
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", s.url), { requestInit: { headers } }));
    const listed = await client.callTool({ name: "list_collections", arguments: {} });
    expect((listed.structuredContent as any).collections.map((c: any) => c.id)).toEqual([fx.collectionId]);
    await client.close();
  });

  it("refuses browser requests from a foreign Origin (DNS rebinding guard)", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } };
    const headers = { accept: "application/json, text/event-stream" };
    const foreign = await s.call("POST", "/mcp", { key: fx.searchKey, json: init, headers: { ...headers, origin: "http://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toMatch(/Origin http:\/\/evil.example/);
    const own = await s.call("POST", "/mcp", { key: fx.searchKey, json: init, headers: { ...headers, origin: s.url } });
    expect(own.status).toBe(200);
    expect(own.body.result.serverInfo.name).toBe("quarry");
  });

  it("answers GET with 405: the endpoint is stateless", async () => {
    const r = await s.call("GET", "/mcp", { key: fx.searchKey });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
  });
});

describe("MCP over stdio (quarry mcp)", () => {
  it("forwards to the server with the key's scope", async () => {
    const client = await stdioClient(fx.searchKey);
    await readScenario(client);
    await client.close();
  }, 120_000);

  it("exits with a clear message when the key is wrong", async () => {
    const client = new Client({ name: "bad", version: "1.0.0" });
    const transport = stdioTransport("wrong");
    let stderr = "";
    transport.stderr?.on("data", (d) => (stderr += String(d)));
    await expect(client.connect(transport)).rejects.toThrow();
    expect(stderr).toMatch(/Cannot connect to .*401|not valid/);
  }, 120_000);
});
