// `quarry mcp --url ... --key ...`: an MCP server on stdin/stdout for clients that launch tools as
// a subprocess (Claude Desktop, Cursor, VS Code). It forwards every request to a running Quarry
// server's /mcp endpoint over HTTP with the given key, so the tools, scopes, quotas and answers
// are exactly those of the HTTP endpoint; nothing is opened locally.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

export interface McpStdioOptions {
  /** base URL of the Quarry server, e.g. http://127.0.0.1:8000 */
  url: string;
  /** API key; its scope decides which tools the client sees */
  key: string;
  /** only for the platform key: the tenant to act in */
  tenantId?: string;
}

/** Connects to the remote endpoint (failing fast on a wrong URL or key), then serves stdio. */
export async function runMcpStdio(opts: McpStdioOptions): Promise<{ close(): Promise<void> }> {
  const endpoint = new URL("/mcp", opts.url);
  const headers: Record<string, string> = { authorization: `Bearer ${opts.key}` };
  if (opts.tenantId) headers["x-tenant-id"] = opts.tenantId;
  // (runtime.ts is not imported for its VERSION: it loads the whole service, seconds of startup)
  const client = new Client({ name: "quarry-mcp-stdio", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));

  const remote = client.getServerCapabilities() ?? {};
  const info = client.getServerVersion();
  const server = new McpServer(
    { name: info?.name ?? "quarry", title: info?.title, version: info?.version ?? "unknown" },
    { instructions: client.getInstructions() },
  );
  const s = server.server;
  if (remote.tools) {
    s.registerCapabilities({ tools: {} });
    s.setRequestHandler(ListToolsRequestSchema, (req) => client.listTools(req.params));
    s.setRequestHandler(CallToolRequestSchema, (req) => client.callTool(req.params));
  }
  if (remote.resources) {
    s.registerCapabilities({ resources: {} });
    s.setRequestHandler(ListResourcesRequestSchema, (req) => client.listResources(req.params));
    s.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => client.listResourceTemplates(req.params));
    s.setRequestHandler(ReadResourceRequestSchema, (req) => client.readResource(req.params));
  }
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await server.connect(transport);
  const close = async () => {
    await server.close();
    await client.close();
  };
  void closed.then(() => client.close());
  return { close };
}
