// Which shards a statement touches, read from Citus's EXPLAIN: the statements a request ran are
// recorded (every pg client's query while recording is on) and explained afterwards. Used by
// test/citus/routing.test.ts and by the multi-tenant Citus bench (citus-tenants.ts).
import pg from "pg";

export interface Recorded {
  text: string;
  values: unknown[];
}

const recorded: Recorded[] = [];
let recording = false;
const original = pg.Client.prototype.query;

/** Records the statements of every pg client while `fn` runs. */
export async function recordStatements<T>(fn: () => Promise<T>): Promise<{ out: T; statements: Recorded[] }> {
  // patched for the duration only: the file's other queries run unrecorded
  pg.Client.prototype.query = function (this: pg.Client, config: any, values?: any, cb?: any) {
    if (recording) {
      const text = typeof config === "string" ? config : config?.text;
      const vals = Array.isArray(values) ? values : (config?.values ?? []);
      if (typeof text === "string") recorded.push({ text, values: vals });
    }
    return (original as any).call(this, config, values, cb);
  } as any;
  recorded.length = 0;
  recording = true;
  try {
    const out = await fn();
    return { out, statements: [...recorded] };
  } finally {
    recording = false;
    pg.Client.prototype.query = original;
  }
}

export interface Routing {
  /** the statement was planned by Citus (touches a distributed or reference table) */
  citus: boolean;
  /** tasks of its Citus scans (1 each for a router query) */
  taskCounts: number[];
  /** shard ids named in the plan */
  shards: number[];
}

const EXPLAINABLE = /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i;

export function explainable(s: Recorded): boolean {
  return EXPLAINABLE.test(s.text);
}

export async function routing(c: pg.Client, s: Recorded): Promise<Routing> {
  const r = await c.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${s.text}`, s.values);
  const plan = r.rows.map((x) => x["QUERY PLAN"]).join("\n");
  const taskCounts = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
  const shards = [...new Set([...plan.matchAll(/ on \w+?_(\d{6,})\b/g)].map((m) => Number(m[1])))];
  return { citus: /Custom Scan \(Citus/.test(plan), taskCounts, shards };
}

/** shard id -> [table, shard group (hash range start), placement method] */
async function shardInfo(c: pg.Client, ids: number[]): Promise<Map<number, { table: string; group: string | null; method: string }>> {
  const r = await c.query<{ shardid: number; tbl: string; minv: string | null; partmethod: string }>(
    `SELECT s.shardid, s.logicalrelid::text AS tbl, s.shardminvalue AS minv, p.partmethod
     FROM pg_dist_shard s JOIN pg_dist_partition p USING (logicalrelid) WHERE s.shardid = ANY($1)`,
    [ids],
  );
  return new Map(r.rows.map((x) => [Number(x.shardid), { table: x.tbl, group: x.minv, method: x.partmethod }]));
}

/** the shard group (hash range start) holding a tenant's rows */
export async function tenantGroup(c: pg.Client, tenantId: string): Promise<string> {
  const r = await c.query<{ minv: string }>(
    "SELECT shardminvalue AS minv FROM pg_dist_shard WHERE shardid = get_shard_id_for_distribution_column('chunks', $1::text)",
    [tenantId],
  );
  return r.rows[0]!.minv;
}

/**
 * the hash shard groups a statement touches, its largest task count, the tables of its shards, and
 * each hash-distributed shard's table and group (a group is a hash range: two co-location groups
 * share their ranges, so the table tells which one)
 */
export async function groupsOf(c: pg.Client, st: Recorded): Promise<{ groups: Set<string>; maxTasks: number; tables: string[]; hashed: { table: string; group: string }[] }> {
  const r = await routing(c, st);
  const info = await shardInfo(c, r.shards);
  const hashed = [...info.values()].filter((x) => x.method === "h").map((x) => ({ table: x.table, group: x.group! }));
  return { groups: new Set(hashed.map((x) => x.group)), maxTasks: Math.max(0, ...r.taskCounts), tables: [...info.values()].map((x) => x.table), hashed };
}

/** the shard groups (hash range starts) of the search log holding a tenant's scopes, or one collection's */
export async function scopeGroups(c: pg.Client, tenantId: string, collectionId?: string): Promise<Set<string>> {
  const r = await c.query<{ minv: string }>(
    `SELECT s.shardminvalue AS minv FROM analytics_scopes sc JOIN pg_dist_shard s ON s.shardid = get_shard_id_for_distribution_column('search_events', sc.id)
     WHERE sc.tenant_id = $1 AND ($2::text IS NULL OR sc.collection_id = $2)`,
    [tenantId, collectionId ?? null],
  );
  return new Set(r.rows.map((x) => x.minv));
}
