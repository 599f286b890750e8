// quarry migrate-data over a real embedded deployment: two tenants with uploads indexed by the
// real embedding model through a real server, plus a signed-up workspace (user, session, token);
// the command copies it into a fresh PostgreSQL database, a second run changes nothing, and a
// server on PostgreSQL answers the same queries with the same top-10 document ids, with the same
// API keys and session cookie, and serves the copied originals.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { quarryCommand } from "../helpers/server-build.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

const TOPICS: Record<string, string[]> = {
  harbour: ["cranes lift containers off cargo ships", "tugboats push tankers to the quay", "the harbour master assigns berths"],
  orchard: ["apple trees blossom in April", "pear grafts take on quince rootstock", "codling moth larvae bore into apples"],
  kitchen: ["sourdough needs a lively starter", "braise the beef slowly in red wine", "temper chocolate before dipping"],
  garage: ["change the engine oil every ten thousand km", "brake pads squeal when worn thin", "a weak battery fails in cold mornings"],
};

/** Eight documents per tenant, two per topic, each with its own wording so rankings have few ties. */
function corpus(tenant: string): { name: string; content: string; type: string }[] {
  const files: { name: string; content: string; type: string }[] = [];
  for (const [topic, lines] of Object.entries(TOPICS)) {
    for (let v = 0; v < 2; v++) {
      const body = lines.map((l, i) => `${l}${"!".repeat(v)} (${tenant} note ${i + v * 3}).`).join(" ");
      const extra = v ? `\n\n## Appendix\n\nMore on ${topic}: ${lines.slice().reverse().join("; ")}.` : "";
      files.push({ name: `${topic}-${v}.md`, content: `# ${topic} ${tenant} ${v}\n\n${body}${extra}\n`, type: "text/markdown" });
    }
  }
  return files;
}

const QUERIES = ["containers on cargo ships", "apple blossom", "slow braised beef", "worn brake pads", "winter battery starting problems", "harbour berth"];

interface Workspace {
  key: string;
  collectionId: string;
}

async function topIds(s: TestServer, w: Workspace): Promise<string[][]> {
  const out: string[][] = [];
  for (const query of QUERIES) {
    const r = await s.call("POST", "/search", { key: w.key, json: { query, collection_id: w.collectionId, top_k: 10 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    out.push((r.body.results as any[]).map((x) => x.document_id));
  }
  return out;
}

/** without --files-to: the originals go into the target database (FILE_STORE_URL unset: postgres) */
function migrateData(from: string, to: string): { code: number | null; out: string; err: string } {
  const [node, cli] = quarryCommand();
  const r = spawnSync(node, [cli, "migrate-data", "--from", from, "--to", to, "--batch-size", "7"], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, LOG_LEVEL: "warn", FILE_STORE_URL: "" },
    timeout: 240_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const countLines = (out: string) =>
  out
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s{2,}/));

const skip = await pgUnavailableReason();
if (skip) console.log(`skipping migrate-data: ${skip}`);

describe.skipIf(skip !== null)("quarry migrate-data (SQLite -> PostgreSQL)", () => {
  let db: TestDatabase;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-migrate-from-"));
  const sharedDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-migrate-to-"));
  const workspaces: Workspace[] = [];
  const before: string[][][] = [];
  let cookie = "";
  let uploadedDoc = { key: "", id: "", tenantId: "" };

  beforeAll(async () => {
    db = await createTestDatabase("quarry_migrate");
    const s = await startServer({ REQUIRE_EMAIL_VERIFICATION: "false", DEFAULT_PLAN: "enterprise" }, { dataDir });
    try {
      expect(s.rt.store.kind, "the source deployment must be SQLite: run without TEST_STORE=postgres").toBe("sqlite");
      for (const name of ["Acme", "Globex"]) {
        const t = await s.tenant(name);
        const src = await createSource(s, t.adminKey);
        expect((await upload(s, t.adminKey, src, corpus(name))).status).toBe(202);
        const docs = await waitIndexed(s, t.adminKey, src, 180_000);
        expect(docs.every((d) => d.status === "indexed")).toBe(true);
        uploadedDoc = { key: t.adminKey, id: docs[0].id, tenantId: t.id };
        workspaces.push({ key: t.adminKey, collectionId: await createCollection(s, t.adminKey, [src]) });
      }
      expect(s.rt.embedderStatus().state).toBe("ready"); // the vectors are real, so the copy is tested
      for (const w of workspaces) before.push(await topIds(s, w));
      const su = await s.call("POST", "/auth/signup", { json: { email: `owner.${Date.now()}@example.com`, password: "correct horse battery", workspace_name: "Initech" } });
      expect(su.status).toBe(201);
      cookie = /service_session=[^;]+/.exec(su.headers.getSetCookie().join("\n"))![0];
    } finally {
      await s.close();
    }
  }, 400_000);

  afterAll(async () => {
    await db?.drop();
    for (const d of [dataDir, sharedDir]) fs.rmSync(d, { recursive: true, force: true });
  });

  it("copies every entity with matching counts, and a second run is a no-op", () => {
    const first = migrateData(dataDir, db.url);
    expect(first.code, first.err + first.out).toBe(0);
    const lines = countLines(first.out);
    expect(lines.map((l) => l[0])).toEqual(expect.arrayContaining(["tenants", "api_keys", "users", "sessions", "documents", "chunks", "chunk vectors", "stored files"]));
    for (const [entity, source, target, status] of lines) expect([entity, source, target, status]).toEqual([entity, source, source, "OK"]);
    const n = Object.fromEntries(lines.map((l) => [l[0], Number(l[1])]));
    expect(n.tenants).toBe(3);
    expect(n.documents).toBe(16);
    expect(n["stored files"]).toBe(16);
    expect(n["chunk vectors"]).toBe(n.chunks);
    expect(n.users).toBe(1);

    const second = migrateData(dataDir, db.url);
    expect(second.code, second.err).toBe(0);
    expect(second.out).toBe(first.out);
  }, 400_000);

  it("refuses to mix another deployment into the migrated database", () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-migrate-other-"));
    try {
      fs.copyFileSync(path.join(dataDir, "quarry.db"), path.join(other, "quarry.db"));
      const r = migrateData(other, db.url);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/holds a migration from .*migrate into an empty database/);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  }, 120_000);

  it("a server on PostgreSQL answers the same top 10 with the same keys, session and files", async () => {
    const s = await startServer({ DATABASE_URL: db.url, REQUIRE_EMAIL_VERIFICATION: "false" }, { dataDir: sharedDir });
    try {
      expect(s.rt.store.kind).toBe("postgres");
      // until the model has loaded, search answers from the lexical list alone
      expect(await s.rt.embedder!.whenReady()).toBe(true);
      for (let i = 0; i < workspaces.length; i++) expect(await topIds(s, workspaces[i])).toEqual(before[i]);
      const me = await s.call("GET", "/collections", { cookie });
      expect(me.status).toBe(200);
      const doc = await s.call("GET", `/documents/${uploadedDoc.id}`, { key: uploadedDoc.key });
      expect(doc.status).toBe(200);
      expect(doc.body.status).toBe("indexed");
      // the original is in the database, where a worker on any machine re-reads it to reindex;
      // the server's own DATA_DIR holds none
      expect((await s.rt.files.read(uploadedDoc.tenantId, uploadedDoc.id))?.toString("utf8")).toMatch(/^# /);
      expect(fs.readdirSync(path.join(sharedDir, "files")).filter((e) => e !== "tmp")).toEqual([]);
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        const r = await c.query("SELECT count(*)::int AS n FROM documents WHERE status = 'indexed'");
        expect(r.rows[0].n).toBe(16);
        const f = await c.query("SELECT count(*)::int AS n FROM stored_files WHERE tag = ''");
        expect(f.rows[0].n).toBe(16);
      } finally {
        await c.end();
      }
    } finally {
      await s.close();
    }
  }, 300_000);
});
