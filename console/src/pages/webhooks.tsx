// Webhooks (issue 30 item 4): register an endpoint (its signing secret is shown once, here), list
// and delete endpoints; per endpoint, the delivery log with a redeliver action (webhook-deliveries.tsx).
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { api, type Collection, type Webhook, type WebhookCreated } from "../api";
import { Link } from "../router";
import { Alert, CollectionSelect, ColumnHeads, ConfirmAction, CopyButton, Field, formatDate, Notice, Page, Status, useSubmit } from "../ui";

/** The events POST /webhooks accepts (src/services/webhooks/webhook-types.ts). */
export const EVENTS: { value: string; text: string }[] = [
  { value: "document.indexed", text: "document.indexed — a document finished indexing" },
  { value: "document.failed", text: "document.failed — a document could not be indexed" },
  { value: "crawl.completed", text: "crawl.completed — a crawl finished" },
  { value: "crawl.failed", text: "crawl.failed — a crawl stopped with an error" },
  { value: "source.synced", text: "source.synced — a data source finished a scheduled or manual sync" },
];

function SecretCard({ created, onHide }: { created: WebhookCreated; onHide: () => void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), [created.id]);
  return (
    <section className="card secret" aria-labelledby="secret-heading" ref={ref} tabIndex={-1}>
      <h2 id="secret-heading">Signing secret for {created.url}</h2>
      <Notice tone="warning">
        <strong>Copy this secret now.</strong> It is shown only once. Your receiver checks each request's <code>webhook-signature</code> with it (Standard Webhooks).
      </Notice>
      <code className="secret-value" aria-label="The webhook signing secret">
        {created.secret}
      </code>
      <div className="actions">
        <CopyButton text={created.secret} label="Copy secret" className="button" />
        <button type="button" className="button button--ghost" onClick={onHide}>
          I have stored it, hide it
        </button>
      </div>
    </section>
  );
}

function CreateForm({ collections, onCreated }: { collections: Collection[]; onCreated: (w: WebhookCreated) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["document.indexed"]);
  const [collectionId, setCollectionId] = useState("");
  const [description, setDescription] = useState("");
  const form = useSubmit();
  async function create(e: FormEvent) {
    e.preventDefault();
    if (events.length === 0) {
      form.setFieldErrors({ events: "Choose at least one event." });
      return;
    }
    const body = { url, events, collection_id: collectionId || null, description: description.trim() || null };
    const w = await form.run(() => api<WebhookCreated>("POST", "/webhooks", body), ["url", "events", "collection_id", "description"]);
    if (w) {
      setUrl("");
      setDescription("");
      onCreated(w);
    }
  }
  const toggle = (ev: string, on: boolean) => setEvents((xs) => (on ? [...xs, ev] : xs.filter((x) => x !== ev)));
  return (
    <form onSubmit={(e) => void create(e)} noValidate>
      <Alert error={form.error} />
      <Field label="Endpoint URL" name="url" type="url" placeholder="https://example.com/hooks/quarry" value={url} onChange={(e) => setUrl(e.target.value)} error={form.fieldErrors.url} required />
      <fieldset className={`field${form.fieldErrors.events ? " field--invalid" : ""}`} aria-describedby={form.fieldErrors.events ? "events-error" : undefined}>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <div className="check" key={ev.value}>
            <input id={`event-${ev.value}`} type="checkbox" checked={events.includes(ev.value)} onChange={(e) => toggle(ev.value, e.target.checked)} />
            <label htmlFor={`event-${ev.value}`}>{ev.text}</label>
          </div>
        ))}
        {form.fieldErrors.events ? (
          <p className="field-error" id="events-error">
            {form.fieldErrors.events}
          </p>
        ) : null}
      </fieldset>
      <CollectionSelect id="webhook-collection" label="Only events of this collection (optional)" collections={collections} value={collectionId} onChange={setCollectionId} none="Every collection" />
      <Field label="Description (optional)" name="description" value={description} onChange={(e) => setDescription(e.target.value)} error={form.fieldErrors.description} maxLength={500} />
      <button className="button" type="submit" disabled={form.busy}>
        {form.busy ? "Adding…" : "Add endpoint"}
      </button>
    </form>
  );
}

function EndpointRow({ w, collection, onDeleted }: { w: Webhook; collection?: string; onDeleted: () => void }) {
  const del = useSubmit();
  async function remove() {
    const ok = await del.run(async () => {
      await api("DELETE", `/webhooks/${encodeURIComponent(w.id)}`);
      return true;
    });
    if (ok) onDeleted();
  }
  return (
    <tr>
      <th scope="row" className="url-cell">
        <Link href={`/workspace/webhooks/${encodeURIComponent(w.id)}`}>{w.url}</Link>
        {w.description ? <div className="muted small">{w.description}</div> : null}
      </th>
      <td data-label="Events">{w.events.join(", ")}</td>
      <td data-label="Collection">{w.collection_id ? (collection ?? w.collection_id) : "Every collection"}</td>
      <td data-label="Status">
        <Status value={w.status} />
        {w.disabled_reason ? <div className="muted small">{w.disabled_reason}</div> : null}
      </td>
      <td data-label="Created">{formatDate(w.created_at)}</td>
      <td className="row-actions">
        <ConfirmAction
          label="Delete"
          confirmLabel="Yes, delete"
          accessibleLabel={`Delete ${w.url}`}
          question="Delete this endpoint and its delivery log? Nothing more is sent to it."
          onConfirm={() => void remove()}
          busy={del.busy}
        />
        {del.error ? <Alert error={del.error} /> : null}
      </td>
    </tr>
  );
}

export function WebhooksPage() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [collections, setCollections] = useState<Collection[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  const load = useCallback(() => api<Webhook[]>("GET", "/webhooks").then(setHooks, setError), []);
  useEffect(() => {
    void load();
    void api<Collection[]>("GET", "/collections").then(setCollections, () => {});
  }, [load]);
  const collectionName = (id: string | null) => collections.find((c) => c.id === id)?.name;
  return (
    <Page title="Webhooks" lead="Quarry POSTs a signed message to your endpoint when documents finish indexing, crawls end and sources sync.">
      {created ? <SecretCard created={created} onHide={() => setCreated(null)} /> : null}
      <section className="card" aria-labelledby="new-webhook">
        <h2 id="new-webhook">Add an endpoint</h2>
        <CreateForm
          collections={collections}
          onCreated={(w) => {
            setCreated(w);
            void load();
          }}
        />
      </section>
      <section className="card" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Endpoints</h2>
        <Alert error={error} />
        {hooks === null && !error ? <p role="status">Loading…</p> : null}
        {hooks?.length === 0 ? <p>No endpoints yet.</p> : null}
        {hooks && hooks.length > 0 ? (
          <div className="table-wrap">
            <table className="keys">
              <caption className="visually-hidden">Webhook endpoints</caption>
              <ColumnHeads names={["URL", "Events", "Collection", "Status", "Created"]} actions />
              <tbody>
                {hooks.map((w) => (
                  <EndpointRow key={w.id} w={w} collection={collectionName(w.collection_id)} onDeleted={() => void load()} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </Page>
  );
}
