// Schedules of crawled data sources and git sources: hourly, daily, weekly or a cron expression (UTC), validated
// (422) and capped by plan (free: at most daily); POST /data-sources/{id}/sync starts a crawl now.
// Every worker process ticks; a due schedule moves to its next run by compare-and-set, so exactly
// one process starts its crawl, on either queue backend.
import cronParser from "cron-parser";
import type { Logger } from "pino";
import type { Store } from "../../store/types.js";
import type { SourceScheduleRow } from "../../store/schedule-types.js";
import { nowIso } from "../../store/ids.js";
import { keylessPrincipal, tenantOf, type Principal } from "../auth/auth.js";
import { ServiceError, ValidationError, badRequest, notFound } from "../errors.js";
import type { CrawlCreateBody, CrawlOut } from "./crawl-types.js";

/** Named schedules: minute 0 of every hour, midnight UTC, Monday midnight UTC. */
const NAMED: Record<string, string> = { hourly: "0 * * * *", daily: "0 0 * * *", weekly: "0 0 * * 1" };
/** Shortest interval a plan allows between two runs; plans not named have no floor. */
const PLAN_FLOOR_MS: Record<string, number> = { free: 86_400_000 };
/** Most schedules one tick starts. */
const TICK_LIMIT = 100;

export interface ScheduleServiceDeps {
  store: Pick<Store, "schedules" | "tenants"> & { content: Pick<Store["content"], "getSource"> };
  log: Logger;
  /** starts a crawl of a source (the crawl service's create) */
  startCrawl(p: Principal, body: CrawlCreateBody): Promise<CrawlOut>;
  /** starts a sync of a git source (the crawl service's syncGit) */
  startGitSync(p: Principal, sourceId: string): Promise<CrawlOut>;
}

export interface ScheduleOut {
  data_source_id: string;
  schedule: string;
  next_run_at: string;
  last_run_at: string | null;
}

const scheduleOut = (r: SourceScheduleRow): ScheduleOut => ({ data_source_id: r.data_source_id, schedule: r.schedule, next_run_at: r.next_run_at, last_run_at: r.last_run_at });

function invalid(schedule: string, msg: string): ValidationError {
  return new ValidationError([{ type: "schedule", loc: ["body", "schedule"], msg, input: schedule }]);
}

/** The runs after `from` (UTC); throws a 422 for what is neither a name nor a five-field cron expression. */
export function upcomingRuns(schedule: string, from: Date, n = 1): Date[] {
  const expr = NAMED[schedule] ?? schedule;
  if (expr.trim().split(/\s+/).length !== 5) throw invalid(schedule, "Use hourly, daily, weekly or a five-field cron expression such as '30 2 * * *' (UTC).");
  try {
    const it = cronParser.parseExpression(expr, { currentDate: from, tz: "UTC" });
    return Array.from({ length: n }, () => it.next().toDate());
  } catch (err) {
    throw invalid(schedule, `Not a valid cron expression: ${err instanceof Error ? err.message : String(err)}.`);
  }
}

/** 422 when the schedule runs more often than the plan allows. */
function checkPlan(schedule: string, plan: string, now: Date): void {
  const floor = PLAN_FLOOR_MS[plan];
  if (!floor) return;
  const runs = upcomingRuns(schedule, now, 3);
  const shortest = Math.min(runs[1].getTime() - runs[0].getTime(), runs[2].getTime() - runs[1].getTime());
  if (shortest < floor) throw invalid(schedule, `The ${plan} plan syncs a source at most once a day; use daily, weekly or a cron expression that runs at most daily.`);
}

/** The website source (with its crawl settings) or git source of this workspace, or 404/400. */
async function crawledSource(deps: ScheduleServiceDeps, tenantId: string, sourceId: string) {
  const source = await deps.store.content.getSource(tenantId, sourceId);
  if (!source) throw notFound("Data source", sourceId);
  const settings = source.configuration as Record<string, unknown> | null;
  if ((source.source_type !== "website" && source.source_type !== "git") || typeof settings?.url !== "string") {
    throw badRequest(`Data source '${sourceId}' is not a crawled website source nor a git source; only those sync. Crawl a site into it first (POST /crawl).`);
  }
  return { source, settings };
}

export function createScheduleService(deps: ScheduleServiceDeps) {
  const crawlBody = (sourceId: string, settings: Record<string, unknown>): CrawlCreateBody => ({ ...(settings as unknown as CrawlCreateBody), data_source_id: sourceId });
  /** a crawl of a website source with its saved settings, or a sync of a git source */
  async function startSync(p: Principal, tenantId: string, sourceId: string): Promise<CrawlOut> {
    const { source, settings } = await crawledSource(deps, tenantId, sourceId);
    return source.source_type === "git" ? deps.startGitSync(p, sourceId) : deps.startCrawl(p, crawlBody(sourceId, settings));
  }

  async function tick(now = new Date()): Promise<number> {
    let started = 0;
    for (const row of await deps.store.schedules.due(now.toISOString(), TICK_LIMIT)) {
      let next: string;
      try {
        next = upcomingRuns(row.schedule, now)[0].toISOString(); // missed runs are not caught up
      } catch {
        continue;
      }
      if (!(await deps.store.schedules.claim(row.data_source_id, row.next_run_at, next, now.toISOString()))) continue;
      if (await runScheduled(row)) started++;
    }
    return started;
  }

  async function runScheduled(row: SourceScheduleRow): Promise<boolean> {
    try {
      const tenant = await deps.store.tenants.get(row.tenant_id);
      await startSync(keylessPrincipal(tenant, ["admin"]), row.tenant_id, row.data_source_id);
      return true;
    } catch (err) {
      // a crawl still running (409) or a source gone: this run is skipped, the next one comes
      const level = err instanceof ServiceError ? "info" : "warn";
      deps.log[level]({ err: err instanceof Error ? err.message : String(err), data_source: row.data_source_id }, "scheduled sync skipped");
      return false;
    }
  }

  return {
    async set(p: Principal, sourceId: string, schedule: string): Promise<ScheduleOut> {
      const tenant = tenantOf(p);
      await crawledSource(deps, tenant.id, sourceId);
      const now = new Date();
      const [next] = upcomingRuns(schedule, now);
      checkPlan(schedule, tenant.plan, now);
      const at = nowIso();
      const row = { tenant_id: tenant.id, data_source_id: sourceId, schedule, next_run_at: next.toISOString(), last_run_at: null, created_at: at, updated_at: at };
      await deps.store.schedules.put(row);
      return scheduleOut((await deps.store.schedules.get(tenant.id, sourceId)) ?? row);
    },
    async get(p: Principal, sourceId: string): Promise<ScheduleOut> {
      const row = await deps.store.schedules.get(tenantOf(p).id, sourceId);
      if (!row) throw notFound("Schedule of data source", sourceId);
      return scheduleOut(row);
    },
    async remove(p: Principal, sourceId: string): Promise<void> {
      if (!(await deps.store.schedules.remove(tenantOf(p).id, sourceId))) throw notFound("Schedule of data source", sourceId);
    },
    /** POST /data-sources/{id}/sync: a crawl with the source's saved settings (a git source: a sync), now */
    syncNow: (p: Principal, sourceId: string): Promise<CrawlOut> => startSync(p, tenantOf(p).id, sourceId),
    /** starts the crawls of due schedules; returns how many it started */
    tick,
  };
}

export type ScheduleService = ReturnType<typeof createScheduleService>;
