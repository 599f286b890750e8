// Where each table lives when the database is a Citus cluster (docs/decisions.md, "Distribution
// on Citus"). Plain PostgreSQL ignores all of this. `migrate` calls distribute() after the SQL
// migrations, so a database that gained Citus later is distributed on its next migrate, and a
// table added by a later migration is distributed by the run that creates it.
import type pg from "pg";

// db.ts imports this module; its Queryable is restated here so the two do not import each other
type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

export type Placement = "reference" | "tenant" | "scope" | "coordinator";

/**
 * Every table of the schema, in an order where each foreign key's target comes first (Citus
 * distributes a referencing table only once its target is distributed). tenant: hash-distributed
 * by tenant_id, all co-located with `collections`; scope: the search log, hash-distributed by its
 * scope number (a tenant and collection, interned in the reference table `analytics_scopes`), all
 * co-located with `search_events`, a group of its own (docs/decisions.md, "The search log's shape
 * and write path"); reference: a copy on every node, for small tables read before the tenant is
 * known (keys by hash, sessions by token, users by email); coordinator: cross-tenant queues that
 * stay on the coordinator.
 */
export const DISTRIBUTION: ReadonlyArray<readonly [table: string, placement: Placement]> = [
  ["tenants", "reference"],
  ["api_keys", "reference"],
  ["users", "reference"],
  ["sessions", "reference"],
  ["account_tokens", "reference"],
  ["vector_indexes", "reference"],
  ["analytics_scopes", "reference"],
  ["auth_attempts", "coordinator"],
  // the search log is keyed by a scope number (tenant and collection), not tenant_id
  ["search_events", "scope"],
  ["analytics_queries", "scope"],
  ["analytics_actors", "scope"],
  ["search_feedback", "scope"],
  ["search_hourly", "scope"],
  ["query_daily", "scope"],
  ["jobs", "coordinator"],
  ["schema_migrations", "coordinator"],
  ["collections", "tenant"],
  ["data_sources", "tenant"],
  ["collection_sources", "tenant"],
  ["documents", "tenant"],
  ["chunks", "tenant"],
  ["lexical_stats", "tenant"],
  ["lexical_df", "tenant"],
  ["lexical_postings", "tenant"],
  ["usage_counters", "tenant"],
  ["audit_log", "tenant"],
  ["benchmark_suites", "tenant"],
  ["benchmark_cases", "tenant"],
  ["benchmark_runs", "tenant"],
  ["benchmark_tunings", "tenant"],
  ["collection_adaptations", "tenant"],
  ["crawl_jobs", "tenant"],
  ["crawl_pages", "tenant"],
  ["crawl_failures", "tenant"],
  ["stored_files", "tenant"],
  ["stored_file_chunks", "tenant"],
  ["crawl_page_outcomes", "tenant"],
  ["crawl_page_misses", "tenant"],
  ["document_text_hashes", "tenant"],
  ["webhook_endpoints", "tenant"],
  ["webhook_deliveries", "tenant"],
  ["source_schedules", "tenant"],
  ["analytics_settings", "tenant"],
];

/** the table every tenant table is co-located with */
export const COLOCATION_ANCHOR = "collections";
/** the table the search log's tables are co-located with, and their distribution column */
export const SCOPE_ANCHOR = "search_events";
/**
 * The migration that gave the search log's interned tables a (scope, id) key. Before it, a
 * deployment keeps the log on the coordinator, as the first Citus deployments did (their tables
 * become Citus local tables through their keys to `tenants`), and the migrate that applies it
 * distributes them.
 */
export const SCOPE_PLACEMENT_FROM = "126_analytics_scope_keys.sql";

/** true when the database has the Citus extension (the operator ran CREATE EXTENSION citus) */
export async function isCitus(q: Queryable): Promise<boolean> {
  const r = await q.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'");
  return (r.rowCount ?? 0) > 0;
}

interface Placed {
  partmethod: string;
  repmodel: string;
}

async function placedAs(q: Queryable, table: string): Promise<Placed | null> {
  const r = await q.query<Placed>("SELECT partmethod, repmodel FROM pg_dist_partition WHERE logicalrelid = to_regclass($1)", [table]);
  return r.rows[0] ?? null;
}

function isPlaced(p: Placed | null, placement: Placement): boolean {
  if (placement === "coordinator") return true;
  if (placement === "reference") return p?.partmethod === "n" && p.repmodel === "t";
  return p?.partmethod === "h";
}

/** the plan as it applies to this schema: the search log and its scopes stay on the coordinator before SCOPE_PLACEMENT_FROM */
async function planFor(q: Queryable): Promise<typeof DISTRIBUTION> {
  const r = await q.query("SELECT 1 FROM schema_migrations WHERE name = $1", [SCOPE_PLACEMENT_FROM]).catch(() => ({ rowCount: 0 }));
  if ((r.rowCount ?? 0) > 0) return DISTRIBUTION;
  return DISTRIBUTION.map(([t, p]) => [t, p === "scope" || t === "analytics_scopes" ? "coordinator" : p] as const);
}

function citusError(what: string, err: unknown): Error {
  const e = err as Error & { detail?: string; hint?: string };
  return new Error(`Citus: ${what} failed: ${[e.message, e.detail, e.hint].filter(Boolean).join("; ")}`, { cause: err });
}

/**
 * Rows in the graph of an index on `table` that one tenant's search walks: the planner's estimate
 * for the table, or on Citus one shard's (their average), since a tenant's rows all live in one
 * shard whose index is its own. 0 when unknown (never analysed).
 */
export async function rowsPerShard(q: Queryable, table: string): Promise<number> {
  const distributed = (await isCitus(q)) && (await placedAs(q, table))?.partmethod === "h";
  if (!distributed) {
    const r = await q.query<{ rows: number }>("SELECT greatest(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = to_regclass($1)", [table]);
    return r.rows[0]?.rows ?? 0;
  }
  const r = await q.query<{ rows: number | null }>(
    `SELECT avg(result::float8)::float8 AS rows FROM run_command_on_shards($1,
       $$SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = '%s'::regclass$$) WHERE success`,
    [table],
  );
  return r.rows[0]?.rows ?? 0;
}

/** Distributes a tenant table by tenant_id next to the others (no-op when it is already). */
export async function distributeTenantTable(q: Queryable, table: string): Promise<boolean> {
  return distributeBy(q, table, "tenant_id", COLOCATION_ANCHOR);
}

async function distributeBy(q: Queryable, table: string, column: string, anchor: string): Promise<boolean> {
  const p = await placedAs(q, table);
  if (isPlaced(p, "tenant")) return false;
  try {
    // a table Citus took into its metadata on its own (a foreign key to a reference table) is
    // handed back first: create_distributed_table wants a plain one
    if (p) await q.query("SELECT undistribute_table($1)", [table]);
    const hadRows = ((await q.query(`SELECT 1 FROM ${table} LIMIT 1`)).rowCount ?? 0) > 0;
    await q.query("SELECT create_distributed_table($1, $2, colocate_with => $3)", [table, column, table === anchor ? "none" : anchor]);
    // the rows were copied to the shards; the coordinator's own copy would stay on its disk, unread
    if (hadRows) await q.query("SELECT truncate_local_data_after_distributing_table($1)", [table]);
  } catch (err) {
    throw citusError(`distributing ${table}`, err);
  }
  return true;
}

interface ForeignKey {
  tbl: string;
  /** the table it references */
  ref: string;
  name: string;
  def: string;
}

async function foreignKeys(q: Queryable): Promise<ForeignKey[]> {
  const r = await q.query<ForeignKey>(
    `SELECT conrelid::regclass::text AS tbl, confrelid::regclass::text AS ref, conname AS name, pg_get_constraintdef(oid) AS def
     FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace ORDER BY conrelid::regclass::text, conname`,
  );
  return r.rows;
}

/** a copy on every node (of a plain table or of a Citus local table, which Citus converts in place) */
async function referenceTable(q: Queryable, table: string): Promise<void> {
  try {
    await q.query("SELECT create_reference_table($1)", [table]);
  } catch (err) {
    throw citusError(`replicating ${table}`, err);
  }
}

/**
 * Citus local tables the plan makes reference tables (analytics_scopes of a deployment from
 * before SCOPE_PLACEMENT_FROM) are converted before any foreign key is dropped: without its keys
 * Citus would hand such a table back as a plain one, which it cannot do for one with an identity
 * column ("cannot complete operation on a table with identity column").
 */
async function referenceLocalTables(q: Queryable, plan: typeof DISTRIBUTION): Promise<string[]> {
  const done: string[] = [];
  for (const [table, placement] of plan) {
    const p = await placedAs(q, table);
    if (placement !== "reference" || !p || isPlaced(p, "reference")) continue;
    await referenceTable(q, table);
    done.push(table);
  }
  return done;
}

async function placeAll(q: Queryable, plan: typeof DISTRIBUTION, vecTables: string[]): Promise<string[]> {
  const done: string[] = [];
  for (const [table, placement] of plan) {
    if (isPlaced(await placedAs(q, table), placement)) continue;
    if (placement === "reference") await referenceTable(q, table);
    else if (placement === "scope") await distributeBy(q, table, "scope", SCOPE_ANCHOR);
    else await distributeTenantTable(q, table);
    done.push(table);
  }
  for (const t of vecTables) if (await distributeTenantTable(q, t)) done.push(t);
  return done;
}

/**
 * Places every table of DISTRIBUTION (and the vector tables, vec_*) on a Citus database; returns
 * the tables it placed this time. Runs under the migration lock, in one transaction. The foreign
 * keys of the tables to place are dropped first and made again at the end: Citus would otherwise turn every table that
 * references tenants into a coordinator-local table the moment tenants becomes a reference table,
 * and it distributes a table only once everything it references is placed.
 */
export async function distribute(q: Queryable): Promise<string[]> {
  if (!(await isCitus(q))) return [];
  const tables = await q.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
  const existing = new Set(tables.rows.map((r) => r.name));
  const vecTables = [...existing].filter((t) => t.startsWith("vec_"));
  // a table of the plan that a later migration creates is placed by the migrate that runs it
  const plan = (await planFor(q)).filter(([table]) => existing.has(table));
  const pending = new Set<string>();
  for (const [table, placement] of plan) if (!isPlaced(await placedAs(q, table), placement)) pending.add(table);
  for (const t of vecTables) if (!isPlaced(await placedAs(q, t), "tenant")) pending.add(t);
  if (pending.size === 0) return [];
  await q.query("BEGIN");
  try {
    // the lexical statistics are kept by statement triggers on chunks (migration 051): Citus
    // creates them on each shard, where they touch only the same tenant's co-located shards
    await q.query("SET LOCAL citus.enable_unsafe_triggers = on");
    // reference tables written after a parallel shard operation in one transaction: Citus asks
    // for one connection per node throughout
    await q.query("SET LOCAL citus.multi_shard_modify_mode = 'sequential'");
    // only the keys from or to a table placed now: the others' shards keep theirs (an upgrade that
    // places the search log leaves the keys among the tables placed before alone)
    const fks = (await foreignKeys(q)).filter((fk) => pending.has(fk.tbl) || pending.has(fk.ref));
    const converted = await referenceLocalTables(q, plan);
    for (const fk of fks) await q.query(`ALTER TABLE ${fk.tbl} DROP CONSTRAINT ${fk.name}`);
    const done = [...converted, ...(await placeAll(q, plan, vecTables))];
    for (const fk of fks) {
      await q.query(`ALTER TABLE ${fk.tbl} ADD CONSTRAINT ${fk.name} ${fk.def}`).catch((err) => {
        throw citusError(`the foreign key ${fk.name} of ${fk.tbl} (${fk.def})`, err);
      });
    }
    await q.query("COMMIT");
    return done;
  } catch (err) {
    await q.query("ROLLBACK");
    throw err;
  }
}

/** What `quarry migrate` prints about the cluster: null on one PostgreSQL. */
export async function placementSummary(q: Queryable): Promise<{ distributed: number; reference: number } | null> {
  if (!(await isCitus(q))) return null;
  const r = await q.query<{ distributed: number; reference: number }>(
    `SELECT count(*) FILTER (WHERE partmethod = 'h')::int AS distributed,
            count(*) FILTER (WHERE partmethod = 'n' AND repmodel = 't')::int AS reference
     FROM pg_dist_partition`,
  );
  return r.rows[0]!;
}
