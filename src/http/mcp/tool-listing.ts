// A catalogue spec as an MCP tools/list entry. Apart from server.ts, so that /openai-tools.json
// (format=mcp) answers without loading the MCP SDK, which the server loads only for /mcp.
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolSpec } from "./catalog.js";

/** An MCP tool listing entry for a catalogue spec. */
export function mcpTool(spec: ToolSpec): Tool {
  const { $id: _id, ...inputSchema } = JSON.parse(JSON.stringify(spec.input)) as Tool["inputSchema"] & { $id?: string };
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema,
    annotations: { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: false, openWorldHint: spec.name === "add_url" },
  };
}
