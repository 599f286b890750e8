// Schemas of the agent endpoints: tool definitions and POST /tool-calls.
import { Type } from "@sinclair/typebox";
import { FreeObject, Nullable, strictObject } from "./common.js";

export const TOOL_FORMATS = ["chat_completions", "responses", "anthropic", "mcp"] as const;

export const AgentToolsQuery = Type.Object({
  format: Type.Optional(
    Type.Unsafe<(typeof TOOL_FORMATS)[number]>({
      type: "string",
      enum: [...TOOL_FORMATS],
      default: "chat_completions",
      description:
        "Shape of the definitions: chat_completions (OpenAI Chat Completions `tools`, the default), responses (OpenAI Responses API, flat), anthropic (Anthropic Messages `tools` with input_schema) or mcp (MCP tools/list entries).",
    }),
  ),
});

export const ToolDefinitions = Type.Array(FreeObject, {
  $id: "ToolDefinitions",
  description: "Tool definitions in the requested shape; only the tools the caller's scope may run (ingest tools need an ingest key).",
});

export const ToolCallRequest = strictObject(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: "Tool name, as in the definitions (for example `search`)." }),
    arguments: Type.Optional(
      Nullable(FreeObject, {
        description: "The arguments the model produced, as an object (parse the JSON string of a tool call first). Null values mean \"use the default\".",
      }),
    ),
  },
  { $id: "ToolCallRequest" },
);

export const ToolCallResponse = Type.Object(
  {
    name: Type.String(),
    content: Type.String({ description: "Text for the model: send it back as the tool result." }),
    structured_content: Nullable(FreeObject, { description: "The same result as data (null when the call failed)." }),
    is_error: Type.Boolean({ description: "true when the tool could not do what was asked; content says what to change." }),
  },
  { $id: "ToolCallResponse" },
);
