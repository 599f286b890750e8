// API keys: create one with scopes (its secret is shown once, here), list them, revoke one.
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { api, type ApiKey, type ApiKeyCreated } from "../api";
import { Alert, CopyButton, Field, formatDate, Notice, Page, Status, useSubmit } from "../ui";

const SCOPES: { value: string; text: string }[] = [
  { value: "search", text: "search — search and retrieve, read collections and documents" },
  { value: "ingest", text: "ingest — also create collections and sources, upload, crawl" },
  { value: "admin", text: "admin — also manage API keys" },
];

export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const form = useSubmit();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>(["search"]);
  const [expires, setExpires] = useState("");
  const secretRef = useRef<HTMLElement>(null);

  const load = useCallback(() => api<ApiKey[]>("GET", "/api-keys").then(setKeys, setError), []);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (created) secretRef.current?.focus();
  }, [created]);

  async function create(e: FormEvent) {
    e.preventDefault();
    if (scopes.length === 0) {
      form.setFieldErrors({ scopes: "Choose at least one scope." });
      return;
    }
    const body = { name, scopes, expires_in_days: expires.trim() === "" ? null : Number(expires) };
    const k = await form.run(() => api<ApiKeyCreated>("POST", "/api-keys", body), ["name", "scopes", "expires_in_days"]);
    if (k) {
      setCreated(k);
      setName("");
      setExpires("");
      void load();
    }
  }

  const toggle = (scope: string, on: boolean) => setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));

  return (
    <Page title="API keys" lead="Programs call the API with a key: Authorization: Bearer <key>. A key may have at most your own scopes.">
      {created ? (
        <section className="card secret" aria-labelledby="secret-heading" ref={secretRef} tabIndex={-1}>
          <h2 id="secret-heading">Your new key “{created.name}”</h2>
          <Notice tone="warning">
            <strong>Copy this key now.</strong> It is shown only once; Quarry keeps only a hash of it. If you lose it, revoke it and create another.
          </Notice>
          <code className="secret-value" aria-label="The new API key">
            {created.key}
          </code>
          <div className="actions">
            <CopyButton text={created.key} label="Copy key" className="button" />
            <button type="button" className="button button--ghost" onClick={() => setCreated(null)}>
              I have stored it, hide it
            </button>
          </div>
        </section>
      ) : null}

      <section className="card" aria-labelledby="new-key">
        <h2 id="new-key">Create a key</h2>
        <form onSubmit={(e) => void create(e)} noValidate>
          <Alert error={form.error} />
          <Field label="Name" name="name" hint="What uses it, e.g. “docs site search”." value={name} onChange={(e) => setName(e.target.value)} error={form.fieldErrors.name} required />
          <fieldset className={`field${form.fieldErrors.scopes ? " field--invalid" : ""}`} aria-describedby={form.fieldErrors.scopes ? "scopes-error" : undefined}>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <div className="check" key={s.value}>
                <input id={`scope-${s.value}`} type="checkbox" name="scopes" value={s.value} checked={scopes.includes(s.value)} onChange={(e) => toggle(s.value, e.target.checked)} />
                <label htmlFor={`scope-${s.value}`}>{s.text}</label>
              </div>
            ))}
            {form.fieldErrors.scopes ? (
              <p className="field-error" id="scopes-error">
                {form.fieldErrors.scopes}
              </p>
            ) : null}
          </fieldset>
          <Field
            label="Expires after (days, optional)"
            name="expires_in_days"
            type="number"
            inputMode="numeric"
            min={1}
            max={3650}
            hint="Leave empty for a key that does not expire."
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
            error={form.fieldErrors.expires_in_days}
          />
          <button className="button" type="submit" disabled={form.busy}>
            {form.busy ? "Creating…" : "Create key"}
          </button>
        </form>
      </section>

      <section className="card" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        <Alert error={error} />
        {keys === null && !error ? <p role="status">Loading…</p> : null}
        {keys?.length === 0 ? <p>No keys yet.</p> : null}
        {keys && keys.length > 0 ? <KeyTable keys={keys} onRevoked={() => void load()} /> : null}
      </section>
    </Page>
  );
}

function KeyTable({ keys, onRevoked }: { keys: ApiKey[]; onRevoked: () => void }) {
  return (
    <div className="table-wrap">
      <table className="keys">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Status</th>
            <th scope="col">Last used</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <KeyRow key={k.id} k={k} onRevoked={onRevoked} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ k, onRevoked }: { k: ApiKey; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = useSubmit();
  const status = k.status ?? "active";
  async function doRevoke() {
    const ok = await revoke.run(async () => {
      await api("DELETE", `/api-keys/${encodeURIComponent(k.id)}`);
      return true;
    });
    setConfirming(false);
    if (ok) onRevoked();
  }
  return (
    <tr>
      <th scope="row">{k.name}</th>
      <td data-label="Key">
        <code>{k.prefix}…</code>
      </td>
      <td data-label="Scopes">{k.scopes.join(", ")}</td>
      <td data-label="Status">
        <Status value={status} />
        {k.expires_at && status === "active" ? <div className="muted small">expires {formatDate(k.expires_at)}</div> : null}
      </td>
      <td data-label="Last used">{formatDate(k.last_used_at)}</td>
      <td data-label="Created">{formatDate(k.created_at)}</td>
      <td className="row-actions">
        {status === "active" && !confirming ? (
          <button type="button" className="button button--danger-ghost" onClick={() => setConfirming(true)} aria-label={`Revoke ${k.name}`}>
            Revoke
          </button>
        ) : null}
        {confirming ? (
          <span className="confirm" role="group" aria-label={`Revoke ${k.name}?`}>
            <span>Revoke? Programs using it stop working at once.</span>
            <button type="button" className="button button--danger" onClick={() => void doRevoke()} disabled={revoke.busy} autoFocus>
              Yes, revoke
            </button>
            <button type="button" className="button button--ghost" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : null}
        {revoke.error ? <Alert error={revoke.error} /> : null}
      </td>
    </tr>
  );
}
