// Citus for the local PostgreSQL 15: installed already, or built from the vendored source
// (QUARRY_VENDOR_DIR, default ../shared/vendor: the tarball and a two-line patch for 15.20's
// headers, see its README). Building needs root (make install writes into PostgreSQL's
// directories) and about 3 minutes on 2 cores. Returns null when Citus is usable, else the reason
// it is not, so the caller can skip with that reason printed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const VERSION = "13.2.2";
const BUILD_PACKAGES = ["postgresql-server-dev-15", "liblz4-dev", "libzstd-dev", "libcurl4-openssl-dev", "libkrb5-dev"];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${(r.stderr || r.stdout || r.error?.message || "").slice(-2000)}`);
  return r.stdout.trim();
}

export function pgConfig(pgBin, flag) {
  const local = join(pgBin, "pg_config");
  return run(existsSync(local) ? local : "pg_config", [flag]);
}

export function citusInstalled(pgBin) {
  try {
    return existsSync(join(pgConfig(pgBin, "--sharedir"), "extension", "citus.control"));
  } catch {
    return false;
  }
}

function missingPackages() {
  return BUILD_PACKAGES.filter((p) => spawnSync("dpkg", ["-s", p], { stdio: "ignore" }).status !== 0);
}

/** Installs Citus when missing; returns null when it is there, or why it cannot be. */
export function ensureCitus(pgBin, log = console.log) {
  if (citusInstalled(pgBin)) return null;
  const vendor = resolve(process.env.QUARRY_VENDOR_DIR ?? "../shared/vendor");
  const tarball = join(vendor, `citus-${VERSION}.tar.gz`);
  if (!existsSync(tarball)) return `Citus is not installed and ${tarball} is absent (set QUARRY_VENDOR_DIR)`;
  if (process.getuid?.() !== 0) return "Citus is not installed and building it needs root (make install)";
  const missing = missingPackages();
  if (missing.length > 0) {
    log(`citus: installing Debian packages ${missing.join(" ")}`);
    // a fresh machine's package lists may be empty or stale
    run("apt-get", ["update", "-qq"]);
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  const dir = mkdtempSync(join(tmpdir(), "citus-build-"));
  try {
    log(`citus: building ${VERSION} from ${tarball} (a few minutes)`);
    run("tar", ["-xzf", tarball, "-C", dir]);
    const src = join(dir, `citus-${VERSION}`);
    const patch = join(vendor, `citus-${VERSION}-pg15.20.patch`);
    if (existsSync(patch)) run("patch", ["-d", src, "-p1", "-i", patch]);
    const jobs = process.env.CITUS_BUILD_JOBS ?? "2";
    run("./configure", ["--with-pg-config=" + join(pgBin, "pg_config")], { cwd: src });
    run("make", [`-j${jobs}`], { cwd: src, maxBuffer: 1 << 28 });
    run("make", ["install"], { cwd: src, maxBuffer: 1 << 28 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return citusInstalled(pgBin) ? null : "Citus was built but citus.control is not in PostgreSQL's share directory";
}

// `node scripts/citus/install.mjs`: install only
if (import.meta.url === `file://${process.argv[1]}`) {
  const reason = ensureCitus(process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin");
  console.log(reason ?? "citus: installed");
  process.exit(reason ? 1 : 0);
}
