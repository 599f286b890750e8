// HTTP entry points for agents: the MCP endpoint (Streamable HTTP, stateless: one server per
// request, bound to the caller's key), POST /tool-calls (the same tools for function-calling
// loops) and the tool definitions in each provider's shape. Authentication and scopes come from
// the app's auth hook, so a wrong key is refused (401) before any MCP message is read.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../../services/auth/auth.js";
import { needs } from "../route-config.js";
import type { RouteApp } from "../route-app.js";
import { errors, ref } from "../schemas/common.js";
import { ServiceError } from "../../services/errors.js";
import { AgentToolsQuery, ToolCallRequest, ToolCallResponse, ToolDefinitions } from "../schemas/agents.js";
import { toolDefinitions, type ToolFormat } from "../openai-tools.js";
import { callTool, ToolRefused, toolsFor, type ToolServices } from "./tools.js";

/**
 * MCP asks servers to check Origin (DNS rebinding): a browser request must come from the server's
 * own origin (its Host or PUBLIC_URL); clients outside a browser send no Origin.
 */
export function originAllowed(origin: string | undefined, host: string | undefined, publicUrl: string): boolean {
  if (!origin) return true;
  try {
    const o = new URL(origin);
    return o.host === host || o.origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}

/** What these routes use: the tools' services and the public URL (origin check of /mcp). */
export interface AgentRouteDeps extends ToolServices {
  publicUrl: string;
}

export const agentRoutes =
  (deps: AgentRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    registerMcpEndpoint(app, deps);
    registerToolCalls(app, deps);
    registerToolDefinitions(app);
  };

const tags = ["agents"];

function registerMcpEndpoint(app: RouteApp, deps: AgentRouteDeps) {
  app.post("/mcp", { config: needs("search"), schema: { hide: true } }, async (req, reply) => {
    if (!originAllowed(req.headers.origin, req.headers.host, deps.publicUrl)) {
      return reply.status(403).send({ detail: `Origin ${req.headers.origin} may not call this MCP endpoint; call it from the server's own origin or without a browser.` });
    }
    await serveMcp(deps, req, reply);
  });
  // Stateless Streamable HTTP has no server-initiated stream and no session to delete.
  for (const method of ["GET", "DELETE"] as const) {
    app.route({
      method,
      url: "/mcp",
      config: needs("search"),
      schema: { hide: true },
      handler: async (_req, reply) =>
        reply.status(405).header("allow", "POST").send({ detail: "This MCP endpoint is stateless: send JSON-RPC messages with POST." }),
    });
  }
}

/**
 * The MCP SDK and our server on it, loaded with the first /mcp request: a quarter of a CPU-second
 * at every process start otherwise (the SDK brings zod and its HTTP stack), which deployments that
 * no agent calls over MCP never use.
 */
const mcpModules = () => Promise.all([import("./server.js"), import("@modelcontextprotocol/sdk/server/streamableHttp.js")]);

/** Answers one MCP request on the raw response, with a server bound to the caller's principal. */
async function serveMcp(deps: AgentRouteDeps, req: FastifyRequest, reply: FastifyReply) {
  const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await mcpModules();
  const server = createMcpServer(deps, req.principal!);
  // stateless: no session id, JSON answers; every request carries its own credentials
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  reply.raw.on("close", () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  } catch (err) {
    req.log.error({ err }, "MCP request failed");
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { "content-type": "application/json" });
      reply.raw.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }));
    }
  }
}

function registerToolCalls(app: RouteApp, deps: AgentRouteDeps) {
  app.post(
    "/tool-calls",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Run one agent tool call (the tools of /openai-tools.json and the MCP server)",
        body: ref(ToolCallRequest),
        response: { 200: ref(ToolCallResponse), ...errors(401, 403, 404, 422) },
      },
    },
    async (req) => {
      try {
        const out = await callTool(deps, req.principal!, req.body.name, req.body.arguments ?? {});
        return { name: req.body.name, content: out.text, structured_content: out.structured, is_error: out.isError };
      } catch (err) {
        if (err instanceof ToolRefused) throw new ServiceError(err.reason === "scope" ? "forbidden" : "not_found", err.message);
        throw err;
      }
    },
  );
}

const definitions = (format: ToolFormat | undefined, principal: Principal) => toolDefinitions(toolsFor(principal), format ?? "chat_completions");

function registerToolDefinitions(app: RouteApp) {
  app.get(
    "/openai-tools.json",
    {
      config: needs("search"),
      schema: {
        tags,
        summary: "Function-calling tool definitions (OpenAI Chat Completions by default; ?format= for other shapes)",
        querystring: AgentToolsQuery,
        response: { 200: ref(ToolDefinitions), ...errors(401, 403, 422) },
      },
    },
    async (req) => definitions(req.query.format as ToolFormat | undefined, req.principal!),
  );
  app.get(
    "/anthropic-tools.json",
    {
      config: needs("search"),
      schema: { tags, summary: "Tool definitions in the Anthropic Messages shape (input_schema, strict)", response: { 200: ref(ToolDefinitions), ...errors(401, 403) } },
    },
    async (req) => definitions("anthropic", req.principal!),
  );
}
