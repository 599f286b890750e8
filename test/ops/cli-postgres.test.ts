// The CLI with DATABASE_URL: `quarry migrate` brings a fresh PostgreSQL database to the current
// schema (and is a no-op the second time), tenants and keys are made there, and backup/restore
// refuse in one line that names pg_dump. Skipped, with the reason, without PostgreSQL + pgvector.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { LIGHT, oneLine, run } from "./cli-helpers.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";

const reason = await pgUnavailableReason();
if (reason) console.warn(`skipping the CLI on PostgreSQL: ${reason}`);

const migrationFiles = fs.readdirSync(path.resolve("src/store/postgres/migrations")).filter((f) => /^\d+_.*\.sql$/.test(f));

describe.skipIf(reason !== null)("quarry CLI with DATABASE_URL", () => {
  const dbs: TestDatabase[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dbs) await d.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  async function env(): Promise<Record<string, string>> {
    const db = await createTestDatabase("quarry_cli");
    dbs.push(db);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-cli-pg-"));
    dirs.push(dir);
    return { ...LIGHT, DATA_DIR: dir, DATABASE_URL: db.url };
  }

  it("migrate applies every migration once; tenants and keys land in PostgreSQL", async () => {
    const e = await env();
    const first = await run(["migrate"], e);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ store: "postgres", applied: migrationFiles.length });
    const second = await run(["migrate"], e);
    expect(JSON.parse(second.stdout)).toEqual({ store: "postgres", applied: 0 });
    expect(fs.existsSync(path.join(e.DATA_DIR!, "quarry.db"))).toBe(false); // no SQLite file on the side

    const made = await run(["tenants", "create", "Acme Corp"], e);
    expect(made.code, made.stderr).toBe(0);
    const tenantId = JSON.parse(made.stdout).tenant.id;
    const c = new pg.Client({ connectionString: e.DATABASE_URL });
    await c.connect();
    try {
      expect((await c.query("SELECT slug FROM tenants WHERE id = $1", [tenantId])).rows).toEqual([{ slug: "acme-corp" }]);
      expect((await c.query("SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1", [tenantId])).rows[0].n).toBe(1);
    } finally {
      await c.end();
    }
  });

  it("backup and restore refuse in one line naming pg_dump", async () => {
    const e = await env();
    for (const args of [["backup", path.join(e.DATA_DIR!, "b.tar")], ["restore", path.join(e.DATA_DIR!, "b.tar")]]) {
      const r = await run(args, e);
      expect(r.code, args[0]).not.toBe(0);
      expect(oneLine(r.stderr)).toMatch(/DATABASE_URL selects PostgreSQL.*pg_dump/);
    }
  });
});
