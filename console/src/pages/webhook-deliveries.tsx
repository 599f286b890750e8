// One webhook endpoint and its delivery log (GET /webhooks/{id}/deliveries, newest first), with
// redeliver (same webhook-id, so a receiver that deduplicates takes it once). While a delivery is
// pending (being attempted or waiting for a retry) the log is read again every 1.5 s.
import { useCallback, useEffect, useState } from "react";
import { api, ApiError, type Webhook, type WebhookDelivery } from "../api";
import { Link } from "../router";
import { Alert, ColumnHeads, formatDate, Notice, Page, Status, usePoll, useSubmit } from "../ui";

function DeliveryRow({ d, webhookId, onChange }: { d: WebhookDelivery; webhookId: string; onChange: (m: string) => void }) {
  const again = useSubmit();
  async function redeliver() {
    const ok = await again.run(() => api<WebhookDelivery>("POST", `/webhooks/${encodeURIComponent(webhookId)}/deliveries/${encodeURIComponent(d.id)}/redeliver`));
    if (ok) onChange(`Sending ${d.event} (${d.id}) again.`);
  }
  return (
    <tr>
      <th scope="row">
        {d.event}
        <div className="muted small">
          <code>{d.id}</code>
        </div>
      </th>
      <td data-label="Status">
        <Status value={d.status} />
      </td>
      <td data-label="Response">{d.response_status ?? "—"}</td>
      <td data-label="Attempts">{d.attempts}</td>
      <td data-label="Last error" className="wrap">
        {d.last_error ?? "—"}
        {d.next_attempt_at && d.status === "pending" ? <div className="muted small">next try {formatDate(d.next_attempt_at)}</div> : null}
      </td>
      <td data-label="Sent">{formatDate(d.created_at)}</td>
      <td className="row-actions">
        <button type="button" className="button button--secondary" onClick={() => void redeliver()} disabled={again.busy || d.status === "pending"} aria-label={`Redeliver ${d.event} ${d.id}`}>
          Redeliver
        </button>
        {again.error ? <Alert error={again.error} /> : null}
      </td>
    </tr>
  );
}

function DeliveriesTable({ deliveries, webhookId, onChange }: { deliveries: WebhookDelivery[]; webhookId: string; onChange: (m: string) => void }) {
  return (
    <div className="table-wrap">
      <table className="keys">
        <caption className="visually-hidden">Deliveries, newest first</caption>
        <ColumnHeads names={["Event", "Status", "Response", "Attempts", "Last error", "Sent"]} actions />
        <tbody>
          {deliveries.map((d) => (
            <DeliveryRow key={d.id} d={d} webhookId={webhookId} onChange={onChange} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function WebhookPage({ id }: { id: string }) {
  const [hook, setHook] = useState<Webhook | null>(null);
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const path = `/webhooks/${encodeURIComponent(id)}`;
      const [w, ds] = await Promise.all([api<Webhook>("GET", path), api<WebhookDelivery[]>("GET", `${path}/deliveries`)]);
      setHook(w);
      setDeliveries(ds);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [id]);
  useEffect(() => void load(), [load]);
  usePoll(deliveries?.some((d) => d.status === "pending") ?? false, load);

  if (error instanceof ApiError && error.status === 404) {
    return (
      <Page title="Webhook not found">
        <Alert error={error} />
        <Link href="/workspace/webhooks">All webhooks</Link>
      </Page>
    );
  }
  return (
    <Page title="Webhook deliveries" lead={hook ? hook.url : undefined}>
      <p className="breadcrumbs">
        <Link href="/workspace/webhooks">Webhooks</Link> › {hook?.url ?? id}
      </p>
      <Alert error={error} />
      {message ? <Notice tone="success">{message}</Notice> : null}
      {hook ? (
        <p>
          <Status value={hook.status} /> {hook.disabled_reason ? <span className="muted">{hook.disabled_reason}</span> : null} Events: {hook.events.join(", ")}.
        </p>
      ) : null}
      <section className="card" aria-labelledby="deliveries-heading">
        <div className="card-head">
          <h2 id="deliveries-heading">Deliveries</h2>
          <button type="button" className="button button--ghost" onClick={() => void load()}>
            Refresh
          </button>
        </div>
        {deliveries === null && !error ? <p role="status">Loading…</p> : null}
        {deliveries?.length === 0 ? <p>Nothing sent yet. Deliveries appear here when a subscribed event happens.</p> : null}
        {deliveries && deliveries.length > 0 ? (
          <DeliveriesTable
            deliveries={deliveries}
            webhookId={id}
            onChange={(m) => {
              setMessage(m);
              void load();
            }}
          />
        ) : null}
      </section>
    </Page>
  );
}
