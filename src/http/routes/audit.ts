// GET /audit-log: the tenant's audit trail for admins, newest first, paged with a cursor; the
// body is the page's array and the next page is in a Link header (rel="next").
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { AuditService } from "../../services/tenants/audit.js";
import { errors } from "../schemas/common.js";
import { needs } from "../route-config.js";

const AuditEntryOut = Type.Object({
  id: Type.String(),
  at: Type.String({ format: "date-time" }),
  actor_type: Type.String({ description: "api_key, session, platform, anonymous or reset_link" }),
  actor_id: Type.Union([Type.String(), Type.Null()]),
  action: Type.String({ description: "e.g. api_key.created, api_key.revoked, login.failed, workspace.deleted" }),
  target_type: Type.Union([Type.String(), Type.Null()]),
  target_id: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Record(Type.String(), Type.Unknown()),
  address: Type.Union([Type.String(), Type.Null()]),
});

/** What these routes use, and nothing else of the runtime. */
export interface AuditRouteDeps {
  audit: Pick<AuditService, "list">;
}

export const auditRoutes =
  ({ audit }: AuditRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      "/audit-log",
      {
        config: needs("admin"),
        schema: {
          tags: ["audit"],
          summary: "The workspace's audit trail, newest first",
          description:
            "Key creation and revocation, plan changes, sign-ins (succeeded and failed), password resets, crawls of new hosts and deletions. Pages of `limit` entries; the next page's URL is in the `Link` header (rel=\"next\").",
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 200 })),
          }),
          response: { 200: Type.Array(AuditEntryOut), ...errors(400, 401, 403, 422) },
        },
      },
      async (req, reply) => {
        const limit = req.query.limit ?? 50;
        const page = await audit.list(req.principal!, { limit, cursor: req.query.cursor });
        if (page.next) reply.header("link", `</audit-log?limit=${limit}&cursor=${page.next}>; rel="next"`);
        return page.entries;
      },
    );
  };
