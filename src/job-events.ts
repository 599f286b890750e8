// One log line and the metrics of every finished ingest job: tenant, document, data source,
// outcome, chunk count, duration and error, so an operator can follow indexing from the logs alone.
import type { Logger } from "pino";
import type { DocumentCatalog } from "./store/content-store.js";
import type { QueuedJob as JobRow } from "./jobs/types.js";
import type { Metrics } from "./prometheus.js";

export function observedIngestHandler(
  handle: (job: JobRow) => Promise<void>,
  deps: { content: Pick<DocumentCatalog, "getDocument">; log: Logger; metrics: Metrics },
): (job: JobRow) => Promise<void> {
  return async (job) => {
    const started = performance.now();
    const end = deps.metrics.jobDuration.startTimer({ kind: job.kind });
    try {
      await handle(job);
    } catch (err) {
      end();
      const lastAttempt = job.attempts >= job.max_attempts;
      deps.metrics.jobs.inc({ kind: job.kind, outcome: lastAttempt ? "failed" : "retry" });
      deps.log.warn(
        { event: "ingest_job", job: job.id, tenant: job.tenant_id, document: job.subject, attempt: job.attempts, ms: Math.round(performance.now() - started), error: err instanceof Error ? err.message : String(err) },
        lastAttempt ? "ingest job failed" : "ingest job failed; it will be retried",
      );
      throw err;
    }
    end();
    const doc = await deps.content.getDocument(job.tenant_id, job.subject).catch(() => null);
    const outcome = doc?.status === "failed" ? "failed" : "done";
    deps.metrics.jobs.inc({ kind: job.kind, outcome });
    deps.log.info(
      {
        event: "ingest_job",
        job: job.id,
        tenant: job.tenant_id,
        document: job.subject,
        attempt: job.attempts,
        data_source: doc?.data_source_id ?? null,
        status: doc?.status ?? "deleted",
        chunks: doc?.chunk_count ?? 0,
        ms: Math.round(performance.now() - started),
        error: doc?.error ?? null,
      },
      "ingest job finished",
    );
  };
}
