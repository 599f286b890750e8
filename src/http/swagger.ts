// The OpenAPI document and Swagger UI: @fastify/swagger builds the document from the route schemas,
// each operation gets the security and the minimum scope its route declares (config.scope,
// route-config.ts), and decorateOpenApi (openapi/document.ts) finishes it.
import type { FastifyInstance } from "fastify";
import swagger, { type SwaggerTransform } from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { VERSION } from "../version.js";
import { decorateOpenApi } from "./openapi/document.js";
import { SESSION_COOKIE } from "./session-cookie.js";

const DESCRIPTION =
  "Multi-tenant hybrid search (BM25 + embeddings): POST /search for people, POST /retrieve for language models. Authenticate with `Authorization: Bearer <API key>` (or the console session cookie); each operation names its minimum scope (search < ingest < admin < platform). Agents: MCP server at /mcp (Streamable HTTP), tool definitions at /openai-tools.json.";

export async function registerOpenApi(app: FastifyInstance, { publicUrl }: { publicUrl: string }) {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Quarry search service API", version: VERSION, description: DESCRIPTION },
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "API key: Authorization: Bearer <key>" },
          session: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "Console session" },
        },
      },
    },
    transformObject: (documentObject) =>
      "openapiObject" in documentObject ? decorateOpenApi(documentObject.openapiObject, { publicUrl }) : documentObject.swaggerObject,
    refResolver: { buildLocalReference: (json, _base, _frag, i) => String(json.$id ?? `def-${i}`) },
    transform: withScope,
  });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    theme: { title: "Quarry API — Swagger UI" },
    // the served document is /openapi.json (the same object as /docs/json)
    uiConfig: { docExpansion: "list", deepLinking: true, urls: [{ url: "/openapi.json", name: `Quarry API ${VERSION}` }] },
  });
}

/** An operation's security: none for a public route; otherwise a key or session, with the scope named. */
const withScope: SwaggerTransform = ({ schema, url, route }) => {
  const scope = route.config?.scope;
  if (!schema || scope === undefined) return { schema, url };
  const s = { ...(schema as Record<string, unknown>) };
  if (scope === null) {
    s.security = [];
  } else {
    s.security = [{ bearer: [] }, { session: [] }];
    s["x-required-scope"] = scope;
    s.description = `${s.description ? `${String(s.description)}\n\n` : ""}Required scope: \`${scope}\`.`;
  }
  return { schema: s as typeof schema, url };
};
