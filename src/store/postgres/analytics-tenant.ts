// The tenant's own rollups on PostgreSQL and Citus: a tenant whose log spans two or more
// collections gets a scope of its own (collection_id '' in analytics_scopes) whose hourly histogram
// and daily per-query counts are the sums of its collections'. A tenant-wide report reads whole
// hours and days from that one scope (one shard on Citus) instead of grouping every collection's
// rollup apart and merging them by text: 394 / 660 ms -> see docs/decisions.md, "Tenant rollups".
// A tenant with one collection has none (its collection's rollups answer for it), so a million
// events of one collection still take what they took. Raw events stay per collection.
import type { Client, Pool } from "./db.js";
import { DAY, scopeKey } from "../analytics-codec.js";

/** the collection_id of a tenant's own scope: no collection id is empty (routes 404 it first) */
export const TENANT_SCOPE = "";

/** advisory lock class of a tenant's rollup (with the tenant id's hash); 50_001-50_004 are taken */
const LOCK_TENANT_ROLLUP = 50_010;

/**
 * The tenants of a batch that are due a scope of their own: two or more collections logged, none
 * yet. Read before the batch's transaction to choose how it locks them (tenantScopesFor).
 */
export async function tenantsDue(pool: Pool, tenants: string[]): Promise<Set<string>> {
  const r = await pool.query<{ tenant_id: string }>(
    `SELECT tenant_id FROM analytics_scopes WHERE tenant_id = ANY($1::text[]) GROUP BY tenant_id
     HAVING count(*) FILTER (WHERE collection_id <> $2) >= 2 AND count(*) FILTER (WHERE collection_id = $2) = 0`,
    [tenants, TENANT_SCOPE],
  );
  return new Set(r.rows.map((x) => x.tenant_id));
}

/**
 * Locks the tenants' rollups to the caller's commit: shared for writers that add to a tenant scope
 * if there is one (batches, clicks), exclusive for the one that makes it. So the making reads the
 * collections' rollups with every earlier writer committed, and every later writer sees the tenant
 * scope and adds to it: its counts are exact from the start. In one statement, ordered by key, so
 * two batches cannot deadlock on them (a hash shared by two tenants only serialises them more).
 */
async function lockTenants(c: Client, tenants: string[], exclusive: Set<string>): Promise<void> {
  await c.query(
    `SELECT CASE WHEN x.ex THEN pg_advisory_xact_lock($1::int, x.h) ELSE pg_advisory_xact_lock_shared($1::int, x.h) END
     FROM (SELECT hashtext(t) AS h, bool_or(t = ANY($3::text[])) AS ex FROM unnest($2::text[]) AS t GROUP BY 1 ORDER BY 1) x`,
    [LOCK_TENANT_ROLLUP, tenants, [...exclusive]],
  );
}

/** the tenants' own scopes, where they have one, by tenant id */
export async function tenantScopes(q: Pool | Client, tenants: string[]): Promise<Map<string, number>> {
  const r = await q.query<{ id: number; tenant_id: string }>("SELECT id, tenant_id FROM analytics_scopes WHERE tenant_id = ANY($1::text[]) AND collection_id = $2", [tenants, TENANT_SCOPE]);
  return new Map(r.rows.map((x) => [x.tenant_id, x.id]));
}

/** (scope, value) pairs' interned ids by scopeKey (analytics.ts) */
export type Intern = (c: Client, pairs: { scope: number; value: string }[]) => Promise<Map<string, number>>;

/**
 * In a batch's (or click's) transaction, before it writes: locks the tenants and returns their own
 * scopes, made (and filled from their collections' rollups) for the `due` ones still without one.
 */
export async function tenantScopesFor(c: Client, tenants: string[], due: Set<string>, intern: Intern): Promise<Map<string, number>> {
  await lockTenants(c, tenants, due);
  const found = await tenantScopes(c, tenants);
  for (const t of due) if (!found.has(t)) found.set(t, await makeTenantScope(c, t, intern));
  return found;
}

/** the sums of the tenant's collections' rollups, copied into a new scope of the tenant (one-off) */
async function makeTenantScope(c: Client, tenantId: string, intern: Intern): Promise<number> {
  const scopes = (await c.query<{ id: number }>("SELECT id FROM analytics_scopes WHERE tenant_id = $1 AND collection_id <> $2", [tenantId, TENANT_SCOPE])).rows.map((r) => r.id);
  // the scope row first: Citus refuses to write a reference table after reading several shards
  // in parallel in one transaction, and runs what follows the write one connection per node
  const made = await c.query<{ id: number }>("INSERT INTO analytics_scopes (tenant_id, collection_id) VALUES ($1, $2) RETURNING id", [tenantId, TENANT_SCOPE]);
  const scope = made.rows[0]!.id;
  const hourly = await c.query<{ hour: number; origin: number; took_ms: number; searches: number; zero_results: number; low_score: number }>(
    `SELECT hour, origin, took_ms, sum(searches)::int AS searches, sum(zero_results)::int AS zero_results, sum(low_score)::int AS low_score
     FROM search_hourly WHERE scope = ANY($1::int[]) GROUP BY hour, origin, took_ms`,
    [scopes],
  );
  const daily = await c.query<{ day: number; origin: number; text: string; searches: number; zero_results: number; low_score: number; clicks: number; clicked_searches: number; position_sum: number }>(
    `SELECT d.day, d.origin, q.text, sum(d.searches)::int AS searches, sum(d.zero_results)::int AS zero_results, sum(d.low_score)::int AS low_score,
            sum(d.clicks)::int AS clicks, sum(d.clicked_searches)::int AS clicked_searches, sum(d.position_sum)::int AS position_sum
     FROM query_daily d JOIN analytics_queries q ON q.scope = d.scope AND q.id = d.query_id
     WHERE d.scope = ANY($1::int[]) AND q.scope = ANY($1::int[]) GROUP BY d.day, d.origin, q.text`,
    [scopes],
  );
  const ids = await intern(c, [...new Set(daily.rows.map((d) => d.text))].map((value) => ({ scope, value })));
  const h = hourly.rows;
  await c.query(
    `INSERT INTO search_hourly (scope, hour, origin, took_ms, searches, zero_results, low_score)
     SELECT $1, * FROM unnest($2::int[], $3::smallint[], $4::int[], $5::int[], $6::int[], $7::int[])`,
    [scope, h.map((x) => x.hour), h.map((x) => x.origin), h.map((x) => x.took_ms), h.map((x) => x.searches), h.map((x) => x.zero_results), h.map((x) => x.low_score)],
  );
  const d = daily.rows;
  await c.query(
    `INSERT INTO query_daily (scope, day, origin, query_id, searches, zero_results, low_score, clicks, clicked_searches, position_sum)
     SELECT $1, * FROM unnest($2::int[], $3::smallint[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::int[], $10::int[])`,
    [scope, d.map((x) => x.day), d.map((x) => x.origin), d.map((x) => ids.get(scopeKey(String(scope), x.text))!), d.map((x) => x.searches), d.map((x) => x.zero_results),
      d.map((x) => x.low_score), d.map((x) => x.clicks), d.map((x) => x.clicked_searches), d.map((x) => x.position_sum)],
  );
  return scope;
}

/**
 * Adds a first or later click to the tenant's daily row of the clicked search's query, as the
 * collection's row got it (`first`: the search's first click). Runs in the click's transaction
 * after tenantScopesFor (shared lock): the tenant scope interned the text when the search was
 * written, or copied it when made.
 */
export async function clickOnTenant(c: Client, tenantScope: number, s: { at: number; origin: number; query: string }, position: number, first: boolean): Promise<void> {
  await c.query(
    // the text's id as a subquery, not a join: the row is then found by its whole key whatever the
    // planner thinks of the tables (joined: 8.1 ms a click in a tenant of 20 collections; so: 2.7)
    `UPDATE query_daily SET clicks = clicks + 1, position_sum = position_sum + $1, clicked_searches = clicked_searches + $2
     WHERE scope = $3 AND day = $5 AND origin = $6 AND query_id = (SELECT q.id FROM analytics_queries q WHERE q.scope = $3 AND q.text = $4)`,
    [position, first ? 1 : 0, tenantScope, s.query, Math.floor(s.at / DAY), s.origin],
  );
}
