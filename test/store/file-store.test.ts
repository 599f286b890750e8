// The file store contract on its three implementations: the local directory, PostgreSQL (a fresh
// database) and S3-compatible storage (a real s3rver on loopback). Then the atomicity promise: a
// writer process SIGKILLed while it stores files leaves every file whole or absent.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { openStore } from "../../src/store/open.js";
import { openConfiguredFileStore, openFileStore } from "../../src/store/open-files.js";
import type { FileStore } from "../../src/store/files.js";
import type { Store } from "../../src/store/types.js";
import { createTestDatabase, pgUnavailableReason, type TestDatabase } from "../helpers/pg.js";
import { startS3Server, type S3TestServer } from "../helpers/s3.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const pgReason = await pgUnavailableReason();
if (pgReason) console.log(`file store on PostgreSQL skipped: ${pgReason}`);

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-files-"));
  cleanups.push(async () => fs.rmSync(d, { recursive: true, force: true }));
  return d;
};

let db: TestDatabase | null = null;
let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3Server();
  cleanups.push(() => s3.close());
  if (!pgReason) {
    db = await createTestDatabase("quarry_files");
    cleanups.push(() => db!.drop());
  }
});

/** a store of each kind on its own DATA_DIR, with tenants t1 and t2 (PostgreSQL keys files to tenants) */
async function open(kind: "local" | "postgres" | "s3"): Promise<{ files: FileStore; store: Store; env: Record<string, string> }> {
  const dataDir = tmpDir();
  const env: Record<string, string> =
    kind === "local" ? { FILE_STORE_URL: "local" } : kind === "postgres" ? { DATABASE_URL: db!.url } : s3.env(`run-${crypto.randomBytes(4).toString("hex")}`);
  const config = loadConfig({ DATA_DIR: dataDir, ...env });
  const store = await openStore(config);
  cleanups.push(() => store.close());
  if (store.kind === "postgres") {
    const pool = (store as unknown as { pool: import("pg").Pool }).pool;
    await pool.query("INSERT INTO tenants (id, name, slug, created_at) VALUES ('t1', 'a', 'a', ''), ('t2', 'b', 'b', '') ON CONFLICT DO NOTHING");
  }
  return { files: await openConfiguredFileStore(config, store), store, env: { DATA_DIR: dataDir, ...env } };
}

async function temp(files: FileStore, bytes: Buffer): Promise<string> {
  const p = files.tempPath();
  await fsp.writeFile(p, bytes);
  return p;
}

const list = async (files: FileStore) => {
  const out: string[] = [];
  for await (const f of files.list()) out.push(`${f.tenantId}/${f.documentId}:${f.size}`);
  return out.sort();
};

describe.each(["local", "postgres", "s3"] as const)("file store: %s", (kind) => {
  it("puts, stages, places, lists and removes files whole", async (ctx) => {
    if (kind === "postgres" && pgReason) return ctx.skip();
    const { files } = await open(kind);
    const big = crypto.randomBytes(1_100_000); // several chunk rows and more than one insert on PostgreSQL
    const t = await temp(files, big);
    await files.put("t1", "doc_a", t);
    expect(fs.existsSync(t)).toBe(false); // moved
    expect((await files.read("t1", "doc_a"))!.equals(big)).toBe(true);
    expect(await files.read("t1", "doc_missing")).toBeNull();

    await files.put("t1", "doc_empty", await temp(files, Buffer.alloc(0)));
    expect((await files.read("t1", "doc_empty"))!.length).toBe(0);

    // a new version staged beside the placed one is not served until placed
    await files.stage("t1", "doc_a", "v2", await temp(files, Buffer.from("version two")));
    expect((await files.read("t1", "doc_a"))!.equals(big)).toBe(true);
    expect((await files.staged()).map((s) => [s.tenantId, s.documentId, s.tag])).toEqual([["t1", "doc_a", "v2"]]);
    await files.place("t1", "doc_a", "v2", "doc_a");
    expect((await files.read("t1", "doc_a"))!.toString()).toBe("version two");
    expect(await files.staged()).toEqual([]);

    await files.stage("t2", "doc_b", "v1", await temp(files, Buffer.from("discarded")));
    await files.discardStaged("t2", "doc_b", "v1");
    expect(await files.staged()).toEqual([]);
    await files.put("t2", "doc_b", await temp(files, Buffer.from("bee")));

    expect(await list(files)).toEqual(["t1/doc_a:11", "t1/doc_empty:0", "t2/doc_b:3"]);
    // two uploads of one version at once (the same file sent twice): one stands, whole. Not on
    // s3rver: it writes a PUT in place, so two PUTs of one key can interleave on its disk
    // ("firstd"); S3 itself makes each PUT whole, last writer wins, which is all the store relies on.
    if (kind !== "s3") {
      await Promise.all(["first", "second"].map(async (v) => files.stage("t2", "doc_c", "v1", await temp(files, Buffer.from(v)))));
      await files.place("t2", "doc_c", "v1", "doc_c");
      expect(["first", "second"]).toContain((await files.read("t2", "doc_c"))!.toString());
      await files.remove("t2", "doc_c");
    }
    await files.remove("t1", "doc_empty");
    await files.removeTenant("t2");
    expect(await list(files)).toEqual(["t1/doc_a:11"]);
    expect(await files.read("t2", "doc_b")).toBeNull();
  });
});

describe("FILE_STORE_URL", () => {
  it("defaults to the database with DATABASE_URL, the directory without, and names what to change", () => {
    const db = "postgres://u@h:5432/q";
    expect(loadConfig({}).fileStore).toEqual({ kind: "local" });
    expect(loadConfig({ DATABASE_URL: db }).fileStore).toEqual({ kind: "postgres" });
    expect(loadConfig({ DATABASE_URL: db, FILE_STORE_URL: "local" }).fileStore).toEqual({ kind: "local" });
    expect(loadConfig({ FILE_STORE_URL: "s3://my-bucket/quarry/originals/", S3_ENDPOINT: "http://minio:9000" }).fileStore).toMatchObject({
      kind: "s3",
      bucket: "my-bucket",
      prefix: "quarry/originals/",
      endpoint: "http://minio:9000",
      region: "us-east-1",
      forcePathStyle: true,
    });
    expect(loadConfig({ FILE_STORE_URL: "s3://my-bucket" }).fileStore).toMatchObject({ prefix: "", endpoint: null, forcePathStyle: false });
    expect(() => loadConfig({ FILE_STORE_URL: "postgres" })).toThrow(/set DATABASE_URL too/);
    expect(() => loadConfig({ FILE_STORE_URL: "gs://b" })).toThrow(/must be local, postgres or s3:\/\/bucket\/prefix; got "gs:\/\/b"/);
    expect(() => loadConfig({ FILE_STORE_URL: "s3://bkt/p", S3_ACCESS_KEY_ID: "x" })).toThrow(/both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/);
    expect(() => loadConfig({ FILE_STORE_URL: "s3://bkt/p", S3_ENDPOINT: "minio:9000" })).toThrow(/S3_ENDPOINT must be an http/);
  });
});

describe("a deployment moving off a shared DATA_DIR", () => {
  it("still reads originals left in DATA_DIR/files, and stores new ones in PostgreSQL", async (ctx) => {
    if (pgReason) return ctx.skip();
    const { store, env } = await open("postgres");
    fs.mkdirSync(path.join(env.DATA_DIR, "files", "t1"), { recursive: true });
    fs.writeFileSync(path.join(env.DATA_DIR, "files", "t1", "doc_old"), "kept on the shared disk");
    const files = await openFileStore(loadConfig(env), store);
    expect((await files.read("t1", "doc_old"))?.toString()).toBe("kept on the shared disk");
    await files.put("t1", "doc_new", await temp(files, Buffer.from("in the database")));
    expect(fs.existsSync(path.join(env.DATA_DIR, "files", "t1", "doc_new"))).toBe(false);
    expect((await files.read("t1", "doc_new"))?.toString()).toBe("in the database");
    await files.remove("t1", "doc_old");
    expect(await files.read("t1", "doc_old")).toBeNull();
  });
});

/** The child: stores 12 MB files one after another until it is killed, printing each one stored. */
const FILE_BYTES = 12_000_000;
const WRITER = `
import crypto from "node:crypto";
import fsp from "node:fs/promises";
import { loadConfig } from "./src/config.ts";
import { openStore } from "./src/store/open.ts";
import { openConfiguredFileStore } from "./src/store/open-files.ts";
const config = loadConfig(process.env);
const files = await openConfiguredFileStore(config, await openStore(config));
for (let i = 0; ; i++) {
  const bytes = crypto.randomBytes(${FILE_BYTES});
  const p = files.tempPath();
  await fsp.writeFile(p, bytes);
  process.stdout.write("start " + i + "\\n");
  await files.put("t1", "doc_" + i, p);
  process.stdout.write("stored " + i + " " + crypto.createHash("sha256").update(bytes).digest("hex") + "\\n");
}
`;

describe.each(["local", "postgres"] as const)("a writer SIGKILLed mid-write (%s)", (kind) => {
  it("leaves every file whole or absent", async (ctx) => {
    if (kind === "postgres" && pgReason) return ctx.skip();
    const { files, env } = await open(kind);
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", WRITER], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    // killed while it stores its third file (a 12 MB write takes 100s of ms on PostgreSQL)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the writer did not get going:\n${out}`)), 60_000);
      child.stdout.on("data", () => {
        if (/start 2\n/.test(out)) {
          clearTimeout(timer);
          setTimeout(() => (child.kill("SIGKILL"), resolve()), 40);
        }
      });
    });
    await new Promise((r) => child.once("exit", r));
    const stored = new Map([...out.matchAll(/stored (\d+) (\w+)/g)].map((m) => [`doc_${m[1]}`, m[2]]));
    expect(stored.size).toBeGreaterThanOrEqual(2);
    for (let i = 0; i <= stored.size + 1; i++) {
      const bytes = await files.read("t1", `doc_${i}`);
      const want = stored.get(`doc_${i}`);
      if (want) expect(crypto.createHash("sha256").update(bytes!).digest("hex")).toBe(want);
      else if (bytes) expect(bytes.length).toBe(FILE_BYTES); // finished after the last line was read: still whole
    }
  });
});

describe("backup and restore with originals in S3-compatible storage", () => {
  it("archives the originals from the bucket and puts them back into the restoring deployment's store", async () => {
    const { backupCommand, restoreCommand } = await import("../../src/cli/backup.js");
    const { openSqliteStore } = await import("../../src/store/sqlite/index.js");
    const { files, env } = await open("s3");
    openSqliteStore(env.DATA_DIR, { vectorIndex: "exact" }).close(); // the embedded database the backup snapshots
    await files.put("t1", "doc_a", await temp(files, Buffer.from("alpha")));
    await files.put("t2", "doc_b", await temp(files, Buffer.from("beta")));
    const archive = path.join(tmpDir(), "quarry.tar.gz");
    expect((await backupCommand(loadConfig(env), archive)).files).toBe(2);

    const restoredEnv = { ...s3.env(`restored-${crypto.randomBytes(4).toString("hex")}`), DATA_DIR: path.join(tmpDir(), "data") };
    await restoreCommand(loadConfig(restoredEnv), archive);
    const restored = await openConfiguredFileStore(loadConfig(restoredEnv), null);
    expect(await list(restored)).toEqual(["t1/doc_a:5", "t2/doc_b:4"]);
    expect((await restored.read("t2", "doc_b"))!.toString()).toBe("beta");
    expect(fs.readdirSync(path.join(restoredEnv.DATA_DIR, "files")).filter((e) => e !== "tmp")).toEqual([]);
  });
});
