// The `quarry` command line, declared with commander: every command and option, with --help and
// --version at every level. Actions load their modules lazily so `quarry --help` stays instant.
import path from "node:path";
import { Command, Option } from "commander";
import { loadConfig, PLANS } from "../config.js";
import { VERSION } from "../version.js";
import { addBenchOptions, addImportBeirCommand, BENCH_DESCRIPTION, benchCommand, benchOptionsFrom, importCommand } from "../evaluation/commands.js";
import { beirDataDir, findDataset, missingBeirFiles } from "../evaluation/index.js";
import { intArg } from "../terminal/parsers.js";
import { CliError } from "../terminal/errors.js";

const print = (v: unknown) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

/** Commands that return do their work and end the process; serve and worker keep it running. */
export interface ProgramHooks {
  /** called when a finite command is done, with its exit code */
  done(code: number): void;
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "(none)\n";
  const cols = Object.keys(rows[0]);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? "").length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(width[i])).join("  ").trimEnd();
  return [line(cols), ...rows.map((r) => line(cols.map((c) => String(r[c] ?? ""))))].join("\n") + "\n";
}

export function buildProgram(hooks: ProgramHooks): Command {
  const program = new Command("quarry")
    .description("Quarry: multi-tenant hybrid search (BM25 + embeddings). Settings come from the environment (docs/reference/configuration.md).")
    .version(VERSION, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help for this command")
    .showSuggestionAfterError(true);
  program.addHelpText("after", "\nEvery command also reads DATA_DIR, LOG_LEVEL and the other settings of docs/reference/configuration.md.");
  // the order here is the order of `quarry --help` and of docs/reference/cli.md
  addProcessCommands(program);
  addMigrationCommands(program, hooks);
  addImportAndBenchCommands(program, hooks);
  addArchiveCommands(program, hooks);
  addMcpCommand(program);
  addTenantCommands(program, hooks);
  addKeyCommands(program, hooks);
  configureErrors(program);
  return program;
}

/** serve and worker keep the process running, so they never call hooks.done */
function addProcessCommands(program: Command): void {
  program
    .command("serve")
    .description("Run the HTTP API, with the ingest, crawl and tuning workers in the same process unless --no-worker")
    .option("--no-worker", "API only: queued jobs wait for a separate `quarry worker` on the same DATA_DIR")
    .action(async (o: { worker: boolean }) => {
      const { serve } = await import("../server.js");
      await serve({ workers: o.worker });
    });

  program
    .command("worker")
    .description("Run the ingest, crawl and tuning workers without the HTTP API (pair with `quarry serve --no-worker`)")
    .action(async () => {
      const { worker } = await import("../server.js");
      await worker();
    });
}

function addMigrationCommands(program: Command, hooks: ProgramHooks): void {
  program
    .command("migrate")
    .description("Create the database or bring its schema up to date, then exit (serve also does this at start)")
    .action(async () => {
      const config = loadConfig();
      if (config.databaseUrl) {
        const { createPool, migrate } = await import("../store/postgres/db.js");
        const { placementSummary } = await import("../store/postgres/distribution.js");
        const pool = createPool(config.databaseUrl, { max: 1 });
        try {
          const applied = await migrate(pool);
          const citus = await placementSummary(pool);
          print({ store: "postgres", applied: applied.length, ...(citus ? { citus: { tables: citus } } : {}) });
        } finally {
          await pool.end();
        }
        return hooks.done(0);
      }
      const { migrateSqlite } = await import("../store/sqlite/maintenance.js");
      const r = migrateSqlite(config.dataDir);
      print({ store: "sqlite", data_dir: config.dataDir, applied: r.applied, total: r.total.length });
      hooks.done(0);
    });

  program
    .command("migrate-data")
    .description("Copy an embedded deployment (DATA_DIR) into PostgreSQL: every tenant, key, account, document, chunk and vector; resumable; ends with source/target counts")
    .requiredOption("--from <dir>", "DATA_DIR of the embedded deployment (stop its service first)")
    .requiredOption("--to <url>", "postgres://... of the scale-out deployment (DATABASE_URL)")
    .option("--files-to <dir>", "shared DATA_DIR of the scale-out deployment: stored files are copied to DIR/files (default: into the file store FILE_STORE_URL names, PostgreSQL unless set)")
    .option("--batch-size <n>", "rows per transaction", intArg(1, 10_000), 500)
    .action(async (o: { from: string; to: string; filesTo?: string; batchSize: number }) => {
      const { migrateDataCommand } = await import("../store/migrate-data.js");
      hooks.done(await migrateDataCommand({ from: path.resolve(o.from), to: o.to, filesTo: o.filesTo ? path.resolve(o.filesTo) : null, batchSize: o.batchSize }));
    });
}

function addImportAndBenchCommands(program: Command, hooks: ProgramHooks): void {
  const imp = program.command("import").description("Load data into a tenant of DATA_DIR");
  addImportBeirCommand(imp, async (a) => {
    await importCommand(a);
    hooks.done(0);
  });

  addBenchOptions(program.command("bench").description(BENCH_DESCRIPTION)).action(async (raw) => {
    const config = loadConfig();
    const o = benchOptionsFrom(raw, beirDataDir(config.beirDataDir, config.dataDir));
    if (!o.suite) {
      const missing = missingBeirFiles(o.dataset, o.split);
      if (missing.length) {
        const url = findDataset(path.basename(o.dataset))?.download_url ?? "https://github.com/beir-cellar/beir";
        throw new CliError(`No BEIR data set at ${o.dataset} (missing ${missing.join(", ")})`, `Download ${url}, unzip it into BEIR_DATA_DIR, or pass --dataset DIR`, 2);
      }
    }
    hooks.done(await benchCommand(o, ["quarry", ...process.argv.slice(2)].join(" ")));
  });
}

/** backup, restore and export */
function addArchiveCommands(program: Command, hooks: ProgramHooks): void {
  program
    .command("backup")
    .description("Write a consistent archive of DATA_DIR (online SQLite backup + stored files) while the service runs")
    .argument("<file>", "archive to write, e.g. quarry-2026-01-31.tar.gz")
    .action(async (file: string) => {
      const { backupCommand } = await import("./backup.js");
      print(await backupCommand(loadConfig(), file));
      hooks.done(0);
    });

  program
    .command("restore")
    .description("Unpack a backup into an empty DATA_DIR, check it and apply pending migrations")
    .argument("<file>", "archive made by quarry backup")
    .action(async (file: string) => {
      const { restoreCommand } = await import("./backup.js");
      print(await restoreCommand(loadConfig(), file));
      hooks.done(0);
    });

  program
    .command("export")
    .description("Write documents.jsonl and chunks.jsonl of each tenant under OUT/<tenant slug>/")
    .requiredOption("--out <dir>", "output directory")
    .option("--tenant <id>", "only this tenant (id or slug)")
    .action(async (o: { out: string; tenant?: string }) => {
      const { exportCommand } = await import("./backup.js");
      const { withStore } = await import("./admin.js");
      print(await withStore(loadConfig(), (store) => exportCommand(store, o.out, o.tenant ?? null)));
      hooks.done(0);
    });
}

/** serves MCP on stdin/stdout rather than finishing a task, so it never calls hooks.done */
function addMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("Serve Quarry's MCP tools on stdin/stdout, forwarding to a running server's /mcp endpoint")
    .option("--url <url>", "server URL (default $QUARRY_URL)")
    .option("--key <key>", "API key; its scope decides the tools (default $QUARRY_API_KEY)")
    .option("--tenant <id>", "tenant to act in, only with the platform key (default $QUARRY_TENANT_ID)")
    .action(async (o: { url?: string; key?: string; tenant?: string }) => {
      const { mcpCommand } = await import("../http/mcp/command.js");
      await mcpCommand([...(o.url ? ["--url", o.url] : []), ...(o.key ? ["--key", o.key] : []), ...(o.tenant ? ["--tenant", o.tenant] : [])]);
    });
}

function addTenantCommands(program: Command, hooks: ProgramHooks): void {
  const tenants = program.command("tenants").description("Create and list workspaces (tenants) and set their plan");
  tenants
    .command("create")
    .description("Create a tenant and print its first admin key (shown once)")
    .argument("<name>", "display name")
    .option("--slug <slug>", "URL-safe id (default: derived from the name)")
    .addOption(new Option("--plan <plan>", "plan (default: DEFAULT_PLAN)").choices([...PLANS]))
    .option("--key-name <name>", "name of the admin key", "Admin key")
    .action(async (name: string, o: { slug?: string; plan?: string; keyName: string }) => {
      const { createTenant } = await import("./admin.js");
      print(await createTenant(loadConfig(), { name, ...o }));
      hooks.done(0);
    });
  tenants
    .command("list")
    .description("List the tenants of DATA_DIR")
    .option("--json", "print JSON instead of a table")
    .action(async (o: { json?: boolean }) => {
      const { listTenants } = await import("./admin.js");
      const rows = await listTenants(loadConfig());
      if (o.json) print(rows);
      else process.stdout.write(table(rows));
      hooks.done(0);
    });
  tenants
    .command("set-plan")
    .description("Change a tenant's plan (its limits apply at once)")
    .argument("<tenant>", "tenant id or slug")
    .argument("<plan>", `one of ${PLANS.join(", ")}`)
    .action(async (tenant: string, plan: string) => {
      const { setPlan } = await import("./admin.js");
      print(await setPlan(loadConfig(), tenant, plan));
      hooks.done(0);
    });
}

function addKeyCommands(program: Command, hooks: ProgramHooks): void {
  const keys = program.command("keys").description("Create, list and revoke a tenant's API keys");
  keys
    .command("create")
    .description("Create an API key and print its secret (shown once)")
    .requiredOption("--tenant <id>", "tenant id or slug")
    .option("--name <name>", "key name", "CLI key")
    .option("--scopes <list>", "comma-separated scopes: search, ingest, admin", "search")
    .option("--expires-in-days <n>", "expiry (default: never)", intArg(1, 3650))
    .action(async (o: { tenant: string; name: string; scopes: string; expiresInDays?: number }) => {
      const { createKey } = await import("./admin.js");
      const scopes = o.scopes.split(",").map((s) => s.trim()).filter(Boolean);
      print(await createKey(loadConfig(), { tenant: o.tenant, name: o.name, scopes, expiresInDays: o.expiresInDays }));
      hooks.done(0);
    });
  keys
    .command("list")
    .description("List a tenant's keys (never their secrets)")
    .requiredOption("--tenant <id>", "tenant id or slug")
    .action(async (o: { tenant: string }) => {
      const { listKeys } = await import("./admin.js");
      print(await listKeys(loadConfig(), o.tenant));
      hooks.done(0);
    });
  keys
    .command("revoke")
    .description("Revoke a key; requests with it are refused from now on")
    .argument("<key-id>", "id of the key (quarry keys list)")
    .requiredOption("--tenant <id>", "tenant id or slug")
    .action(async (keyId: string, o: { tenant: string }) => {
      const { revokeKey } = await import("./admin.js");
      print(await revokeKey(loadConfig(), o.tenant, keyId));
      hooks.done(0);
    });
}

const fullName = (c: Command): string => (c.parent ? `${fullName(c.parent)} ${c.name()}` : c.name());

/** Usage errors become one line that says how to get the command's help; applied to every command. */
function configureErrors(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureHelp({ helpWidth: 100 }); // the same text at any terminal width (docs/reference/cli.md)
  if (cmd.parent) cmd.version(VERSION, "-V, --version", "print the version");
  cmd.configureOutput({
    outputError: (str, write) => {
      const msg = str.trim().replace(/^error: /, "").replace(/\s*\n\s*/g, " ").replace(/\.$/, "");
      write(`quarry: ${msg}. Run \`${fullName(cmd)} --help\` for usage.\n`);
    },
  });
  for (const sub of cmd.commands) configureErrors(sub);
}

/** Every command's --help text, for the CLI reference (scripts/docs/cli-reference.ts). */
export function helpTexts(program: Command): { command: string; help: string }[] {
  const out: { command: string; help: string }[] = [];
  const walk = (c: Command) => {
    out.push({ command: fullName(c), help: c.helpInformation() });
    for (const s of c.commands) walk(s);
  };
  walk(program);
  return out;
}
