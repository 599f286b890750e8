import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Empty, errors, ref } from "../schemas/common.js";
import { ScheduleOut, ScheduleSet } from "../schemas/schedules.js";
import { CrawlOut } from "../schemas/crawl.js";
import { needs } from "../route-config.js";
import type { ScheduleService } from "../../services/crawl/schedules.js";

/** What these routes use, and nothing else of the runtime. */
export interface ScheduleRouteDeps {
  schedules: Pick<ScheduleService, "set" | "get" | "remove" | "syncNow">;
}

export const scheduleRoutes =
  ({ schedules }: ScheduleRouteDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ["data-sources"];
    const params = Type.Object({ data_source_id: Type.String() });
    app.put(
      "/data-sources/:data_source_id/schedule",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Sync a website or git source on a schedule, with its saved settings", params, body: ref(ScheduleSet), response: { 200: ref(ScheduleOut), ...errors(400, 401, 403, 404, 422) } },
      },
      async (req) => schedules.set(req.principal!, req.params.data_source_id, req.body.schedule),
    );
    app.get(
      "/data-sources/:data_source_id/schedule",
      { config: needs("search"), schema: { tags, summary: "The source's schedule and its next run", params, response: { 200: ref(ScheduleOut), ...errors(401, 403, 404) } } },
      async (req) => schedules.get(req.principal!, req.params.data_source_id),
    );
    app.delete(
      "/data-sources/:data_source_id/schedule",
      { config: needs("ingest"), schema: { tags, summary: "Stop syncing the source on a schedule", params, response: { 204: Empty, ...errors(401, 403, 404) } } },
      async (req, reply) => {
        await schedules.remove(req.principal!, req.params.data_source_id);
        return reply.status(204).send(null);
      },
    );
    app.post(
      "/data-sources/:data_source_id/sync",
      {
        config: needs("ingest"),
        schema: { tags, summary: "Sync a website source (a crawl) or a git source now, with its saved settings", params, response: { 202: ref(CrawlOut), ...errors(400, 401, 403, 404, 409, 503) } },
      },
      async (req, reply) => reply.status(202).send(await schedules.syncNow(req.principal!, req.params.data_source_id)),
    );
  };
