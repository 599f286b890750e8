// Argument handling of `quarry mcp`: reads --url/--key (or QUARRY_URL/QUARRY_API_KEY, so the key
// can stay out of a client's config file) and serves MCP on stdio. Logs go to stderr: stdout
// carries the protocol.
import { parseArgs } from "node:util";
import { runMcpStdio } from "./stdio.js";

export const MCP_USAGE = `Usage: quarry mcp --url <server URL> --key <API key> [--tenant <tenant id>]
Serves Quarry's MCP tools on stdin/stdout, forwarding to a running server's /mcp endpoint.
--url defaults to $QUARRY_URL, --key to $QUARRY_API_KEY; --tenant (or $QUARRY_TENANT_ID) only with the platform key.`;

export async function mcpCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { url: { type: "string" }, key: { type: "string" }, tenant: { type: "string" }, help: { type: "boolean" } },
    strict: true,
  });
  if (values.help) {
    console.error(MCP_USAGE);
    return;
  }
  const url = values.url ?? process.env.QUARRY_URL;
  const key = values.key ?? process.env.QUARRY_API_KEY;
  if (!url || !key) {
    console.error(`Missing ${!url ? "--url" : "--key"}.\n${MCP_USAGE}`);
    process.exit(2);
  }
  try {
    await runMcpStdio({ url, key, tenantId: values.tenant ?? process.env.QUARRY_TENANT_ID });
  } catch (err) {
    console.error(`Cannot connect to ${url}/mcp: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  process.stdin.once("end", () => process.exit(0));
}
