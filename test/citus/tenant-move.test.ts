// On the Citus cluster of `npm run test:citus`: one tenant is given shards of its own
// (isolate_tenant_to_new_shard; block_writes: its writes, a search's query count among them, wait
// for the copy) and those are moved to the other worker (citus_move_shard_placement over logical
// replication) while two clients keep searching; every search answers 200 with the same results
// before, during and after, and the tenant's rows end on the other worker. docs/scale-out.md,
// "Citus step by step", shows the same commands.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { CITUS_WORKERS } from "../helpers/citus.js";

describe.skipIf(CITUS_WORKERS.length === 0)("moving a tenant on Citus", () => {
  let db: TestDatabase;
  let s: TestServer;
  let admin: pg.Client;
  let tenant: { id: string; key: string; col: string };

  beforeAll(async () => {
    db = await createTestDatabase("quarry_citus_move");
    s = await startServer({ DATABASE_URL: db.url });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    for (const name of ["Big", "Small"]) {
      const t = await s.tenant(name);
      const src = await createSource(s, t.adminKey);
      const col = await createCollection(s, t.adminKey, [src]);
      const files = Array.from({ length: 12 }, (_, i) => ({ name: `${name}-${i}.md`, content: `# ${name} runbook ${i}\n\nRestart the ${name} queue after ${i} failed checks.\n` }));
      expect((await upload(s, t.adminKey, src, files)).status).toBe(202);
      await waitIndexed(s, t.adminKey, src);
      if (name === "Big") tenant = { id: t.id, key: t.adminKey, col };
    }
  }, 180_000);

  afterAll(async () => {
    await admin?.end();
    await s?.close();
    await db?.drop();
  });

  const search = () => s.call("POST", "/search", { key: tenant.key, json: { collection_id: tenant.col, query: "restart the Big queue" } });
  const ids = (body: any) => body.results.map((r: any) => r.document_id);

  async function tenantPlacement(): Promise<{ shardid: number; nodeport: number; alone: boolean }> {
    const r = await admin.query<{ shardid: number; nodeport: number; minv: string; maxv: string }>(
      `SELECT s.shardid, p.nodeport, s.shardminvalue AS minv, s.shardmaxvalue AS maxv FROM pg_dist_shard s JOIN pg_dist_placement pl USING (shardid)
       JOIN pg_dist_node p ON p.groupid = pl.groupid WHERE s.shardid = get_shard_id_for_distribution_column('chunks', $1::text)`,
      [tenant.id],
    );
    const x = r.rows[0]!;
    return { shardid: Number(x.shardid), nodeport: x.nodeport, alone: x.minv === x.maxv };
  }

  it("isolates the tenant and moves it to the other worker with no failed search", async () => {
    const before = await search();
    expect(before.status).toBe(200);
    const expected = ids(before.body);
    expect(expected.length).toBeGreaterThan(0);

    const started = Date.now();
    let stop = false;
    const seen: { status: number; ids: string[] }[] = [];
    const clients = Array.from({ length: 2 }, async () => {
      while (!stop) {
        const r = await search();
        seen.push({ status: r.status, ids: r.status === 200 ? ids(r.body) : [JSON.stringify(r.body)] });
      }
    });
    try {
      // its own hash range (one value: this tenant), every co-located table with it
      await admin.query("SELECT isolate_tenant_to_new_shard('collections', $1::text, cascade_option => 'CASCADE', shard_transfer_mode => 'block_writes')", [tenant.id]);
      const isolated = await tenantPlacement();
      expect(isolated.alone).toBe(true);
      const target = CITUS_WORKERS.find((w) => w.port !== isolated.nodeport)!;
      await admin.query("SELECT citus_move_shard_placement($1::bigint, '127.0.0.1', $2::int, $3::text, $4::int, shard_transfer_mode => 'force_logical')", [
        isolated.shardid,
        isolated.nodeport,
        target.host,
        target.port,
      ]);
      expect((await tenantPlacement()).nodeport).toBe(target.port);
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    console.log(`tenant move: ${seen.length} searches answered during the split and move (${Date.now() - started} ms)`);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((x) => x.status !== 200)).toEqual([]);
    expect(seen.every((x) => JSON.stringify(x.ids) === JSON.stringify(expected))).toBe(true);
    const after = await search();
    expect(ids(after.body)).toEqual(expected);
  }, 240_000);
});
