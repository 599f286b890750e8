// The MCP server for one authenticated principal: the tools of catalog.ts (only those the key's
// scope reaches) and browsable resources for collections and documents. Tools are served with
// their JSON Schemas as written (the one definition), so they go through the SDK's request
// handlers rather than registerTool, which wants zod schemas.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../../version.js";
import type { Principal } from "../../services/auth/auth.js";
import { ServiceError } from "../../services/errors.js";
import { mcpTool } from "./tool-listing.js";
import { callTool, ToolRefused, toolsFor, type ToolServices } from "./tools.js";
import { documentText } from "./format.js";

export const MCP_INSTRUCTIONS =
  "Quarry searches the workspace's document collections. Call list_collections to find a collection_id, then search (to find documents) or retrieve (passages with numbered citations to ground an answer). Follow a citation with get_chunk or get_document.";


function registerTools(server: McpServer, svc: ToolServices, p: Principal): void {
  server.server.registerCapabilities({ tools: { listChanged: false } });
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsFor(p).map(mcpTool) }));
  server.server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    try {
      const out = await callTool(svc, p, req.params.name, req.params.arguments ?? {});
      return {
        content: [{ type: "text", text: out.text }],
        ...(out.structured ? { structuredContent: out.structured } : {}),
        ...(out.isError ? { isError: true } : {}),
      };
    } catch (err) {
      if (err instanceof ToolRefused) throw new McpError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
  });
}

/** Resource reads answer a missing resource with the MCP "resource not found" error. */
async function readOrNotFound<T>(uri: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof ServiceError && err.kind === "not_found") throw new McpError(-32002, err.message, { uri });
    throw err;
  }
}

function registerResources(server: McpServer, svc: ToolServices, p: Principal): void {
  const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value, null, 2) }] });
  server.registerResource(
    "collections",
    "quarry://collections",
    { title: "Collections", description: "Every collection of the workspace with its document counts", mimeType: "application/json" },
    async (uri) => json(uri.href, await svc.collections.list(p)),
  );
  server.registerResource(
    "collection",
    new ResourceTemplate("quarry://collections/{collection_id}", {
      list: async () => ({
        resources: (await svc.collections.list(p)).map((c) => ({
          uri: `quarry://collections/${c.id}`,
          name: c.name,
          description: c.description || undefined,
          mimeType: "application/json",
        })),
      }),
    }),
    { title: "Collection", description: "A collection and its 200 most recent documents", mimeType: "application/json" },
    async (uri, vars) =>
      readOrNotFound(uri.href, async () => {
        const id = String(vars.collection_id);
        const collection = await svc.collections.get(p, id);
        const documents = (await svc.documents.list(p, { collection_id: id })).map((d) => ({
          id: d.id,
          title: d.title,
          source: d.source,
          status: d.status,
          uri: `quarry://documents/${d.id}`,
        }));
        return json(uri.href, { ...collection, documents });
      }),
  );
  server.registerResource(
    "document",
    new ResourceTemplate("quarry://documents/{document_id}", { list: undefined }),
    { title: "Document", description: "The indexed text of a document (first 100 chunks)", mimeType: "text/markdown" },
    async (uri, vars) =>
      readOrNotFound(uri.href, async () => {
        const id = String(vars.document_id);
        const doc = await svc.documents.get(p, id);
        const { total, chunks } = await svc.documents.chunks(p, id, 100);
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: documentText(doc, chunks, total) }] };
      }),
  );
}

export function createMcpServer(svc: ToolServices, p: Principal): McpServer {
  const server = new McpServer({ name: "quarry", title: "Quarry search", version: VERSION }, { instructions: MCP_INSTRUCTIONS });
  registerTools(server, svc, p);
  registerResources(server, svc, p);
  return server;
}
