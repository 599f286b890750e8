// Long-running processes: `quarry serve` (the API, plus the background workers unless
// --no-worker) and `quarry worker` (the workers alone). Each logs one start-up line saying what is
// on and off, and on SIGTERM/SIGINT shuts down in order: stop accepting requests, let in-flight
// requests finish, give running jobs SHUTDOWN_TIMEOUT_SECONDS to finish (the rest stay queued and
// resume at the next start), then one final line saying what was left.
import { loadConfig, type Config } from "./config.js";
import { createRuntime, type Runtime } from "./runtime.js";
import { VERSION } from "./version.js";
import { buildApp } from "./http/app.js";

/** What this process runs with, as log fields and as one sentence for people. */
export function startupSummary(rt: Runtime, role: "api" | "api+worker" | "worker") {
  const c: Config = rt.config;
  const onOff = (b: boolean) => (b ? "on" : "off");
  const mail = c.smtpUrl ? `smtp (${new URL(c.smtpUrl).host})` : `outbox (${c.dataDir}/outbox)`;
  const fields = {
    version: VERSION,
    node: process.version,
    role,
    workers: onOff(rt.workers),
    store: rt.store.kind,
    data_dir: c.dataDir,
    platform_key: c.platformApiKey ? "set" : "unset",
    mail,
    private_network_crawling: onOff(c.crawlAllowPrivateNetworks),
    render_js: onOff(c.crawlRenderJs),
    profile: rt.activeProfile.name,
    model: `${rt.activeProfile.provider}:${rt.activeProfile.model}`,
    model_state: rt.embedderStatus().state,
    default_plan: c.defaultPlan,
  };
  const text =
    `workers ${fields.workers}, platform key ${fields.platform_key}, mail via ${mail}, private-network crawling ${fields.private_network_crawling}, ` +
    `JavaScript rendering ${fields.render_js}, model ${fields.model} (profile ${fields.profile}, ${fields.model_state}), data ${c.dataDir}`;
  return { fields, text };
}

/** Runs `stop` once on the first SIGTERM/SIGINT; a second signal exits at once. */
function onSignals(rt: Runtime, what: string, closeFront: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      rt.log.warn({ signal }, `${what}: second signal, exiting without waiting for running jobs`);
      process.exit(1);
    }
    stopping = true;
    const t0 = Date.now();
    rt.log.info({ signal, timeout_s: rt.config.shutdownTimeoutMs / 1000 }, `${what}: shutting down`);
    // whatever hangs, the process must not outlive its grace period by much
    setTimeout(() => {
      rt.log.error({ signal }, `${what}: shutdown took too long; exiting (jobs left running are requeued at the next start)`);
      process.exit(1);
    }, rt.config.shutdownTimeoutMs + 5_000).unref();
    try {
      await closeFront();
      const left = await rt.close();
      rt.log.info(
        { signal, ms: Date.now() - t0, jobs_left: left.jobsLeft, crawls_interrupted: left.crawlsInterrupted },
        `${what} stopped: ${left.jobsLeft ?? "unknown number of"} jobs left queued, ${left.crawlsInterrupted} crawls interrupted; they resume at the next start`,
      );
      process.exit(0);
    } catch (err) {
      rt.log.error({ err, signal }, `${what}: shutdown failed`);
      process.exit(1);
    }
  };
  process.on("SIGINT", (s) => void stop(s));
  process.on("SIGTERM", (s) => void stop(s));
}

export async function serve(opts: { workers?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config, { workers: opts.workers ?? true });
  const app = await buildApp(rt);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await rt.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  // this process answers queries (a worker process never does): every tenant's lexical index is
  // loaded in the background now, so no tenant's first query after a restart pays its load
  // (seconds for a large tenant); a failure only leaves the load at the first query in place
  void rt.store.content.warmUp?.().catch((err: unknown) => rt.log.warn({ err }, "lexical warm-up stopped; tenants load at their first query"));
  const summary = startupSummary(rt, rt.workers ? "api+worker" : "api");
  rt.log.info({ url, ...summary.fields }, `Quarry ${VERSION} serving at ${url}: ${summary.text}`);
  onSignals(rt, "Quarry", () => app.close());
}

export async function worker(): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config, { workers: true });
  const summary = startupSummary(rt, "worker");
  rt.log.info(summary.fields, `Quarry ${VERSION} worker running: ${summary.text}`);
  onSignals(rt, "Quarry worker", async () => undefined);
}
