// One attempt of one webhook delivery, run by the worker: signed (Standard Webhooks), POSTed under
// the crawler's URL policy, and then delivered, retried after the next configured delay, or failed
// for good; an endpoint whose deliveries keep failing every attempt (or that answers 410 Gone) is
// disabled with the reason. At least once: a worker killed mid-attempt leaves the queue job to be
// taken over, and the receiver deduplicates by webhook-id.
import { describeError, postGuarded } from "../../crawl/index.js";
import type { JobQueue, RunningJob } from "../../jobs/types.js";
import type { WebhookDeliveryRow, WebhookEndpointRow } from "../../store/webhook-types.js";
import { signedHeaders } from "./webhook-signing.js";
import { deliveryJob, type WebhookServiceDeps } from "./webhook-types.js";

interface Attempt {
  status: number | null;
  /** null when the receiver answered 2xx */
  error: string | null;
}

async function send(deps: WebhookServiceDeps, ep: WebhookEndpointRow, d: WebhookDeliveryRow): Promise<Attempt> {
  try {
    const r = await postGuarded(deps.guard, ep.url, signedHeaders(ep.secret, d.id, d.payload), d.payload, deps.config.timeoutMs);
    if (r.status >= 200 && r.status < 300) return { status: r.status, error: null };
    const said = r.body.trim().slice(0, 200);
    return { status: r.status, error: `The receiver answered HTTP ${r.status}${said ? `: ${said}` : ""}.` };
  } catch (err) {
    return { status: null, error: describeError(err) };
  }
}

export async function handleDeliveryJob(deps: WebhookServiceDeps, job: RunningJob): Promise<void> {
  const { webhooks } = deps.store;
  const d = await webhooks.deliveryById(job.subject.split(":")[0]);
  if (!d || d.status !== "pending") return; // delivered, failed or deleted meanwhile
  const ep = await webhooks.endpointById(d.endpoint_id);
  if (!ep) return;
  if (ep.status === "disabled") {
    await webhooks.updateDelivery(d.id, { status: "failed", last_error: `The endpoint is disabled: ${ep.disabled_reason ?? "by an operator"}`, next_attempt_at: null });
    return;
  }
  const attempt = d.attempts + 1;
  const result = await send(deps, ep, d);
  const base = { attempts: attempt, response_status: result.status, last_error: result.error };
  if (!result.error) {
    await webhooks.updateDelivery(d.id, { ...base, status: "delivered", next_attempt_at: null });
    if (ep.failure_streak > 0) await webhooks.setEndpointHealth(ep.id, { status: "enabled", disabled_reason: null, failure_streak: 0 });
    return;
  }
  if (result.status === 410) {
    await webhooks.updateDelivery(d.id, { ...base, status: "failed", next_attempt_at: null });
    await webhooks.setEndpointHealth(ep.id, { status: "disabled", disabled_reason: "The receiver answered 410 Gone: it asked for no more deliveries.", failure_streak: ep.failure_streak + 1 });
    return;
  }
  const delay = deps.config.retryDelaysMs[attempt - 1];
  if (delay !== undefined) {
    await webhooks.updateDelivery(d.id, { ...base, status: "pending", next_attempt_at: new Date(Date.now() + delay).toISOString() });
    await deps.queue().enqueue(deliveryJob(d, attempt + 1, delay));
    return;
  }
  await webhooks.updateDelivery(d.id, { ...base, status: "failed", next_attempt_at: null });
  await noteFailedDelivery(deps, ep, attempt, result.error);
}

/** A delivery failed every attempt: the endpoint's streak grows, and past the limit it is disabled. */
async function noteFailedDelivery(deps: WebhookServiceDeps, ep: WebhookEndpointRow, attempts: number, error: string): Promise<void> {
  const streak = ep.failure_streak + 1;
  const disable = streak >= deps.config.disableAfterFailures;
  const reason = disable ? `${streak} deliveries in a row failed all ${attempts} attempts; the last: ${error}` : null;
  await deps.store.webhooks.setEndpointHealth(ep.id, { status: disable ? "disabled" : "enabled", disabled_reason: reason, failure_streak: streak });
  if (disable) deps.log.warn({ endpoint: ep.id, tenant: ep.tenant_id, reason }, "webhook endpoint disabled");
}

/** Pending deliveries that are due and have no live job (a crash between store and queue) are queued. */
export async function recoverDeliveries(deps: Pick<WebhookServiceDeps, "store" | "log">, queue: Pick<JobQueue, "enqueue">): Promise<number> {
  const due = await deps.store.webhooks.dueDeliveries(new Date(Date.now() - 30_000).toISOString(), 500);
  let n = 0;
  for (const d of due) if (await queue.enqueue({ ...deliveryJob(d, d.attempts + 1), unlessLive: true })) n++;
  if (n) deps.log.info({ deliveries: n }, "queued pending webhook deliveries again");
  return n;
}
