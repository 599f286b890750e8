// Issue 14, the CLI: `npx quarry` with --help/--version at every level, one-line errors with the
// fix, tenants and keys against a real DATA_DIR, `serve --no-worker` + `worker` sharing it, and a
// backup taken under write load that restores every acknowledged document.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { LIGHT, oneLine, run, start, type Running } from "./cli-helpers.js";

const tmp = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `quarry-cli-${name}-`));
const dirs: string[] = [];
const procs: Running[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) await p.stop("SIGKILL");
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function dataDir(name: string): string {
  const d = tmp(name);
  dirs.push(d);
  return d;
}

async function uploadDoc(url: string, key: string, sourceId: string, name: string, text: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append("data_source_id", sourceId);
  form.append("files", new Blob([text], { type: "text/markdown" }), name);
  const r = await fetch(`${url}/documents/upload`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: r.status, body: await r.json() };
}

async function api(url: string, key: string, method: string, p: string, json?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(url + p, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(json ? { "content-type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

describe("quarry --help and --version", () => {
  it("answers through npx at the top level", async () => {
    const help = await run(["quarry", "--help"], {}, { command: ["npx", "--no-install"] });
    expect(help.code).toBe(0);
    for (const c of ["serve", "worker", "migrate", "import", "bench", "backup", "restore", "export", "tenants", "keys"]) expect(help.stdout).toMatch(new RegExp(`^  ${c}\\b`, "m"));
    const version = await run(["quarry", "--version"], {}, { command: ["npx", "--no-install"] });
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it("answers at every level", async () => {
    // independent processes: started together, checked in order
    const levels = [["serve"], ["tenants", "create"], ["keys", "revoke"], ["import", "beir"], ["bench"]];
    const answers = await Promise.all(levels.map((args) => Promise.all([run([...args, "--help"], {}), run([...args, "--version"], {})])));
    levels.forEach((args, i) => {
      const [h, v] = answers[i]!;
      expect(h.code, args.join(" ")).toBe(0);
      expect(h.stdout).toContain(`Usage: quarry ${args.join(" ")}`);
      expect(v.stdout, args.join(" ")).toBe(`${VERSION}\n`);
    });
  }, 120_000);
});

describe("errors are one line with the fix", () => {
  it("for bad options, unknown commands, bad settings and a missing BEIR set", async () => {
    const beir = dataDir("beir");
    const [bad, unknown, config, missing] = await Promise.all([
      run(["bench", "--clients", "x"], {}),
      run(["serv"], {}),
      run(["tenants", "list"], { DATA_DIR: dataDir("cfg"), DEFAULT_PLAN: "gold" }),
      run(["import", "beir", path.join(beir, "scifact"), "--tenant", "acme"], { DATA_DIR: dataDir("imp") }),
    ]);
    expect(bad.code).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(/--clients.*invalid.*quarry bench --help/);
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.stderr)).toMatch(/unknown command 'serv'.*serve/);
    expect(config.code).toBe(2);
    expect(oneLine(config.stderr)).toMatch(/^quarry: Configuration error: DEFAULT_PLAN must be one of free, pro, enterprise/);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toMatch(/not a BEIR data set.*Download it from https:\/\/\S+scifact\.zip and unzip it into BEIR_DATA_DIR/);
  });
});

describe("tenants and keys", () => {
  it("creates on DEFAULT_PLAN or --plan, lists, sets the plan, creates and revokes keys", async () => {
    const env = { ...LIGHT, DATA_DIR: dataDir("admin") };
    const a = await run(["tenants", "create", "Acme Corp"], { ...env, DEFAULT_PLAN: "pro" });
    expect(a.code, a.stderr).toBe(0);
    const acme = JSON.parse(a.stdout);
    expect(acme).toMatchObject({ tenant: { slug: "acme-corp" }, plan: "pro", admin_key: { scopes: ["admin"] } });
    expect(acme.admin_key.key).toMatch(/^qk_/);
    const b = JSON.parse((await run(["tenants", "create", "Beta", "--plan", "enterprise", "--slug", "beta"], env)).stdout);
    expect(b.plan).toBe("enterprise");

    const list = JSON.parse((await run(["tenants", "list", "--json"], env)).stdout);
    expect(list.map((t: any) => [t.slug, t.plan])).toEqual(expect.arrayContaining([["acme-corp", "pro"], ["beta", "enterprise"]]));
    const table = await run(["tenants", "list"], env);
    expect(table.stdout).toMatch(/^id\s+slug\s+name\s+plan/m);

    expect(JSON.parse((await run(["tenants", "set-plan", "acme-corp", "free"], env)).stdout)).toMatchObject({ slug: "acme-corp", plan: "free" });
    const wrongPlan = await run(["tenants", "set-plan", "acme-corp", "gold"], env);
    expect(wrongPlan.code).toBe(2);
    expect(oneLine(wrongPlan.stderr)).toMatch(/Unknown plan 'gold'. Use one of free, pro, enterprise/);

    const key = JSON.parse((await run(["keys", "create", "--tenant", "beta", "--name", "search", "--scopes", "search,ingest"], env)).stdout);
    expect(key).toMatchObject({ name: "search", scopes: ["search", "ingest"] });
    const keys = JSON.parse((await run(["keys", "list", "--tenant", "beta"], env)).stdout);
    expect(keys.map((k: any) => k.id)).toContain(key.id);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    expect((await run(["keys", "revoke", key.id, "--tenant", "beta"], env)).code).toBe(0);
    const again = JSON.parse((await run(["keys", "list", "--tenant", "beta"], env)).stdout).find((k: any) => k.id === key.id);
    expect(again.revoked_at).not.toBeNull();
    const otherTenant = await run(["keys", "revoke", key.id, "--tenant", "acme-corp"], env);
    expect(otherTenant.code).toBe(3);
    expect(oneLine(otherTenant.stderr)).toMatch(/API key '.*' was not found/);
    const badScope = await run(["keys", "create", "--tenant", "beta", "--scopes", "platform"], env);
    expect(oneLine(badScope.stderr)).toMatch(/Unknown scope 'platform'. Use a comma-separated list of search, ingest, admin/);
  }, 240_000);
});

describe("serve --no-worker with a separate worker", () => {
  it("the API queues, the worker indexes, both stop on SIGTERM with a final line", async () => {
    const env = { ...LIGHT, DATA_DIR: dataDir("split"), PORT: "0" };
    const t = JSON.parse((await run(["tenants", "create", "Split"], env)).stdout);
    const apiProc = await start(["serve", "--no-worker"], env, /serving at/);
    procs.push(apiProc);
    expect(apiProc.output()).toMatch(/workers off, platform key unset, mail via outbox/);
    const url = apiProc.url!;
    const health = await api(url, t.admin_key.key, "GET", "/health");
    expect(health.body.checks.queue.detail).toMatch(/separate worker processes/);
    const src = await api(url, t.admin_key.key, "POST", "/data-sources", { name: "Docs", source_type: "upload" });
    const up = await uploadDoc(url, t.admin_key.key, src.body.id, "a.md", "# Split\n\nIndexed by the worker process.");
    expect(up.status).toBe(202);
    await new Promise((r) => setTimeout(r, 1500));
    const before = await api(url, t.admin_key.key, "GET", `/documents?data_source_id=${src.body.id}`);
    expect(before.body[0].status).toBe("queued"); // nobody works in the API process

    const worker = await start(["worker"], env, /worker running/);
    procs.push(worker);
    let status = "queued";
    for (const deadline = Date.now() + 60_000; status !== "indexed" && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await api(url, t.admin_key.key, "GET", `/documents?data_source_id=${src.body.id}`)).body[0].status;
    }
    expect(status).toBe("indexed");

    for (const p of [worker, apiProc]) {
      const { code, ms } = await p.stop();
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
      expect(p.output()).toMatch(/stopped: 0 jobs left queued/);
    }
  }, 240_000);
});

describe("backup under write load, restore, export", () => {
  it("restores every document acknowledged before the backup started", async () => {
    const env = { ...LIGHT, DATA_DIR: dataDir("live"), PORT: "0" };
    const t = JSON.parse((await run(["tenants", "create", "Live", "--plan", "enterprise"], env)).stdout);
    const key = t.admin_key.key;
    const server = await start(["serve"], env, /serving at/);
    procs.push(server);
    const url = server.url!;
    const src = (await api(url, key, "POST", "/data-sources", { name: "Docs", source_type: "upload" })).body.id;

    const acknowledged: { id: string }[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const r = await uploadDoc(url, key, src, `doc-${i}.md`, `# Document ${i}\n\nBody of document number ${i}.`);
        if (r.status === 202) acknowledged.push({ id: r.body[0].id });
      }
    })();
    while (acknowledged.length < 15) await new Promise((r) => setTimeout(r, 50));
    const archive = path.join(dataDir("archive"), "quarry.tar.gz");
    // the uploads acknowledged before the backup starts, by program order: a timestamp compared
    // with Date.now() lost the 15th when both fell in the same millisecond (14 of 15, once)
    const beforeBackup = acknowledged.length;
    let backup: Awaited<ReturnType<typeof run>>;
    try {
      backup = await run(["backup", archive], env);
      expect(backup.code, backup.stderr).toBe(0);
      const more = acknowledged.length;
      while (acknowledged.length < more + 5) await new Promise((r) => setTimeout(r, 50));
    } finally {
      writing = false; // also on failure: no upload may still be in flight when the server stops
      await writer;
    }
    expect(JSON.parse(backup.stdout)).toMatchObject({ file: archive });
    expect((await server.stop()).code).toBe(0);

    const target = path.join(dataDir("restored"), "data");
    const restored = await run(["restore", archive], { ...env, DATA_DIR: target });
    expect(restored.code, restored.stderr).toBe(0);
    const store = openSqliteStore(target);
    try {
      const expected = acknowledged.slice(0, beforeBackup);
      expect(expected.length).toBeGreaterThanOrEqual(15);
      for (const a of expected) {
        const doc = await store.content.getDocument(t.tenant.id, a.id);
        expect(doc, a.id).not.toBeNull();
        expect(fs.existsSync(path.join(target, "files", t.tenant.id, a.id)), `stored file of ${a.id}`).toBe(true);
      }
    } finally {
      await store.close();
    }

    const again = await run(["restore", archive], { ...env, DATA_DIR: target });
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toMatch(/is not empty; restore never overwrites data. Point DATA_DIR at a new, empty directory/);

    const out = dataDir("export");
    const exp = await run(["export", "--out", out], { ...env, DATA_DIR: target });
    expect(exp.code, exp.stderr).toBe(0);
    const lines = fs.readFileSync(path.join(out, "live", "documents.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThanOrEqual(acknowledged.slice(0, beforeBackup).length);
    expect(lines[0]).toMatchObject({ tenant_id: t.tenant.id, data_source_id: src });
    expect(fs.existsSync(path.join(out, "live", "chunks.jsonl"))).toBe(true);
  }, 240_000);
});
