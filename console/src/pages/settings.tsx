// Workspace settings: who and what this workspace is, and deleting it (DELETE /auth/workspace with
// the slug typed to confirm). Afterwards the session is gone, so the person lands on the sign-up
// screen with a sentence saying the workspace was deleted.
import { useState, type FormEvent } from "react";
import { api } from "../api";
import { clearDraft } from "../bench-draft";
import { navigate } from "../router";
import { useSession } from "../session";
import { Alert, Field, formatDate, Page, useSubmit } from "../ui";

export function SettingsPage() {
  const session = useSession();
  const me = session.me!;
  const [confirm, setConfirm] = useState("");
  const form = useSubmit();

  async function remove(e: FormEvent) {
    e.preventDefault();
    const ok = await form.run(async () => {
      await api("DELETE", "/auth/workspace", { confirm });
      return true;
    }, ["confirm"]);
    if (ok) {
      clearDraft(me.tenant.id);
      // to the sign-up screen first, so the workspace screens never see the session gone
      navigate(`/signup?deleted=${encodeURIComponent(me.tenant.name)}`, { replace: true });
      session.clear();
    }
  }

  return (
    <Page title="Workspace settings">
      <section className="card" aria-labelledby="about-heading">
        <h2 id="about-heading">This workspace</h2>
        <dl className="facts">
          <div>
            <dt>Name</dt>
            <dd>{me.tenant.name}</dd>
          </div>
          <div>
            <dt>Slug</dt>
            <dd>
              <code>{me.tenant.slug}</code>
            </dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd className="plan-name">{me.plan}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDate(me.tenant.created_at)}</dd>
          </div>
          {me.user ? (
            <div>
              <dt>Signed in as</dt>
              <dd>
                {me.user.email}
                {me.role ? ` (${me.role})` : ""}
              </dd>
            </div>
          ) : null}
        </dl>
      </section>

      <section className="card danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete this workspace</h2>
        <p>
          This deletes every collection, data source, document, crawl, benchmark and API key of <strong>{me.tenant.name}</strong>, and signs everyone out. It cannot be undone.
        </p>
        <form onSubmit={(e) => void remove(e)} noValidate>
          <Alert error={form.error} />
          <Field
            label={`Type the workspace slug, ${me.tenant.slug}, to confirm`}
            name="confirm"
            autoComplete="off"
            spellCheck={false}
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            error={form.fieldErrors.confirm}
          />
          <button type="submit" className="button button--danger" disabled={form.busy || confirm.length === 0}>
            {form.busy ? "Deleting…" : "Delete workspace"}
          </button>
        </form>
      </section>
    </Page>
  );
}
