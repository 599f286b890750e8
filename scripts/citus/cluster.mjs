// A throwaway Citus cluster on loopback: a coordinator and N workers, each its own PostgreSQL 15
// instance initdb'd into a temp directory (as the postgres user when run as root: initdb refuses
// root), Citus preloaded, the workers registered in the `postgres` database. Durability is off
// (fsync, full-page writes): the data dies with the test run anyway.
import { spawnSync } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

function owner() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${(r.stderr || r.stdout || r.error?.message || "").slice(-1500)}`);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function sql(port, statements, database = "postgres") {
  const c = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

const CONF = [
  "listen_addresses = '127.0.0.1'",
  "shared_preload_libraries = 'citus'",
  "max_connections = 300",
  "shared_buffers = 64MB",
  "fsync = off",
  "full_page_writes = off",
  "synchronous_commit = off",
  // a shard move's logical replication needs these (tenant moves)
  "wal_level = logical",
  "max_replication_slots = 10",
  "max_wal_senders = 10",
  // 4 shards per table (production: 32): creating and truncating ~20 distributed tables per test
  // database stays quick, and each worker still holds several shard groups
  "citus.shard_count = 4",
  // loopback only: no TLS between the nodes
  "citus.node_conninfo = 'sslmode=disable'",
];

// PostgreSQL 15.20 lets only listed libraries decode for logical replication, and Citus's shard
// moves and splits decode through its own; older minors have no such setting (and refuse it)
function decodingConf(pgBin) {
  const r = spawnSync(join(pgBin, "postgres"), ["--describe-config"], { encoding: "utf8" });
  return /^output_plugin_libraries\t/m.test(r.stdout ?? "") ? ["output_plugin_libraries = 'pgoutput, test_decoding, citus'"] : [];
}

/**
 * Starts the cluster; returns { coordinator, workers: [{ port }], url, stop() }.
 * `url` is the coordinator's `postgres` database as a connection URL.
 */
export async function startCluster({ pgBin = "/usr/lib/postgresql/15/bin", workers = 2, log = console.log } = {}) {
  const root = mkdtempSync(join(tmpdir(), "quarry-citus-"));
  // the servers' libpq (node to node) reads ~/.postgresql: the caller's HOME may be root's
  const ids = { ...owner(), env: { ...process.env, HOME: root } };
  if (ids.uid !== undefined) chownSync(root, ids.uid, ids.gid);
  const nodes = [];
  const stop = () => {
    for (const n of nodes.reverse()) {
      spawnSync(join(pgBin, "pg_ctl"), ["-D", n.dir, "-m", "immediate", "-w", "stop"], { stdio: "ignore", ...ids });
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i <= workers; i++) {
      const port = await freePort();
      const dir = join(root, `node${i}`);
      mkdirSync(dir, { mode: 0o700 });
      if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid);
      run(join(pgBin, "initdb"), ["-D", dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"], ids);
      appendFileSync(join(dir, "postgresql.conf"), [...CONF, ...decodingConf(pgBin), `port = ${port}`, `unix_socket_directories = '${dir}'`, ""].join("\n"));
      writeFileSync(join(root, `node${i}.log`), "");
      if (ids.uid !== undefined) chownSync(join(root, `node${i}.log`), ids.uid, ids.gid);
      run(join(pgBin, "pg_ctl"), ["-D", dir, "-l", join(root, `node${i}.log`), "-w", "start"], ids);
      nodes.push({ port, dir });
      await sql(port, ["CREATE EXTENSION citus"]);
    }
    const [coordinator, ...rest] = nodes;
    await sql(coordinator.port, [
      `SELECT citus_set_coordinator_host('127.0.0.1', ${coordinator.port})`,
      ...rest.map((w) => `SELECT citus_add_node('127.0.0.1', ${w.port})`),
    ]);
    log(`citus: coordinator on 127.0.0.1:${coordinator.port}, workers on ${rest.map((w) => w.port).join(", ")} (${root})`);
    return {
      coordinator,
      workers: rest,
      root,
      url: `postgres://postgres@127.0.0.1:${coordinator.port}/postgres`,
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}

// `node scripts/citus/cluster.mjs`: a cluster to try things on, until Ctrl-C
if (import.meta.url === `file://${process.argv[1]}`) {
  const c = await startCluster();
  console.log(`TEST_PG_URL=${c.url} TEST_CITUS_WORKERS=${c.workers.map((w) => `127.0.0.1:${w.port}`).join(",")}`);
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => (c.stop(), process.exit(0)));
  setInterval(() => {}, 1 << 30);
}
