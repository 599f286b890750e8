// Starts the API (and, in embedded mode, the background workers) and shuts down cleanly on
// SIGINT/SIGTERM so in-flight requests finish and jobs are left to resume.
import { loadConfig } from "./config.js";
import { createRuntime } from "./runtime.js";
import { buildApp } from "./http/app.js";

export async function serve(): Promise<void> {
  const config = loadConfig();
  const rt = await createRuntime(config);
  const app = await buildApp(rt);
  await app.listen({ port: config.port, host: config.host });
  rt.log.info({ url: `http://${config.host}:${config.port}`, dataDir: config.dataDir, profile: rt.activeProfile.name }, "Quarry is serving");
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    rt.log.info({ signal }, "shutting down");
    await app.close();
    await rt.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
