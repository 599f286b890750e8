// Workspace home: the plan and this month's usage against its limits, and the collections.
import { useEffect, useState } from "react";
import { api, type Collection } from "../api";
import { Link } from "../router";
import { useSession } from "../session";
import { Alert, Page, UsageBar } from "../ui";

export function HomePage() {
  const { me, reload } = useSession();
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    void reload(); // usage moves with every upload and query
    api<Collection[]>("GET", "/collections").then(setCollections, setError);
  }, [reload]);

  const usage = me?.usage;
  return (
    <Page title={me?.tenant.name ?? "Workspace"} lead={`Workspace ${me?.tenant.slug ?? ""}`}>
      <section aria-labelledby="plan-heading" className="card">
        <div className="card-head">
          <h2 id="plan-heading">
            Plan: <span className="plan-name">{me?.plan ?? "—"}</span>
          </h2>
          {usage ? <span className="muted">Usage in {usage.period} (resets on the 1st, UTC)</span> : null}
        </div>
        {usage ? (
          <div className="usage-list">
            <UsageBar label="Data sources" used={usage.sources_used} limit={usage.sources_limit} />
            <UsageBar label="Documents" used={usage.documents_used} limit={usage.documents_limit} />
            <UsageBar label="Queries this month" used={usage.queries_used} limit={usage.queries_limit} />
          </div>
        ) : (
          <p className="muted">No usage record for this workspace.</p>
        )}
      </section>

      <section aria-labelledby="collections-heading" className="card">
        <div className="card-head">
          <h2 id="collections-heading">Collections</h2>
          <Link className="button button--secondary" href="/workspace/collections">
            Manage collections
          </Link>
        </div>
        <Alert error={error} />
        {collections === null && !error ? <p role="status">Loading collections…</p> : null}
        {collections && collections.length === 0 ? (
          <p>
            No collections yet. <Link href="/workspace/collections">Create one</Link> and upload files to search them.
          </p>
        ) : null}
        {collections && collections.length > 0 ? (
          <ul className="collection-list">
            {collections.map((c) => (
              <li key={c.id}>
                <Link href={`/workspace/collections/${encodeURIComponent(c.id)}`}>{c.name}</Link>
                <span className="muted">
                  {c.document_count ?? 0} {c.document_count === 1 ? "document" : "documents"} · {c.indexed_count ?? 0} indexed
                </span>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </Page>
  );
}
