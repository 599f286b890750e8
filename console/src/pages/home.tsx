// Workspace home: the plan and this month's usage against its limits, what is indexing right now
// (crawls and documents in progress, followed every 2 s), and the collections.
import { useCallback, useEffect, useState } from "react";
import { api, type Collection, type CrawlJob, type DataSource, type DocumentOut } from "../api";
import { Link } from "../router";
import { useSession } from "../session";
import { Alert, Page, Progress, Status, UsageBar } from "../ui";

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

      <IndexingNow />

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

const PENDING_DOCS = new Set(["queued", "processing"]);
const ACTIVE_CRAWLS = new Set(["queued", "running"]);

function IndexingNow() {
  const [crawls, setCrawls] = useState<CrawlJob[] | null>(null);
  const [docs, setDocs] = useState<DocumentOut[] | null>(null);
  const [sources, setSources] = useState<Map<string, DataSource>>(new Map());
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
      const [c, d, s] = await Promise.all([api<CrawlJob[]>("GET", "/crawl?limit=50"), api<DocumentOut[]>("GET", "/documents"), api<DataSource[]>("GET", "/data-sources")]);
      setCrawls(c.filter((j) => ACTIVE_CRAWLS.has(j.status)));
      setDocs(d.filter((x) => PENDING_DOCS.has(x.status)));
      setSources(new Map(s.map((x) => [x.id, x])));
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  const busy = (crawls?.length ?? 0) + (docs?.length ?? 0) > 0;
  useEffect(() => {
    if (!busy) return;
    const t = setInterval(() => void load(), 2000);
    return () => clearInterval(t);
  }, [busy, load]);

  const where = (sourceId: string) => {
    const s = sources.get(sourceId);
    const col = s?.collection_ids?.[0];
    return col ? <Link href={`/workspace/collections/${encodeURIComponent(col)}`}>{s?.name}</Link> : (s?.name ?? sourceId);
  };
  return (
    <section aria-labelledby="indexing-heading" className="card">
      <div className="card-head">
        <h2 id="indexing-heading">Indexing now</h2>
        <Link className="button button--secondary" href="/workspace/crawl">
          Crawl a website
        </Link>
      </div>
      <Alert error={error} />
      {crawls === null && !error ? <p role="status">Loading…</p> : null}
      {crawls && docs && !busy ? <p className="muted">Nothing is indexing right now.</p> : null}
      {crawls && crawls.length > 0 ? (
        <ul className="indexing-list" aria-label="Crawls in progress">
          {crawls.map((j) => (
            <li key={j.id}>
              <div className="hit-head">
                <Link href={`/workspace/crawl/${encodeURIComponent(j.id)}`}>Crawl of {j.url}</Link>
                <Status value={j.status} />
              </div>
              <Progress label={`Pages crawled of ${j.url}`} value={j.pages_crawled} max={j.page_limit} text={`${j.pages_crawled} of ${j.page_limit} pages`} />
            </li>
          ))}
        </ul>
      ) : null}
      {docs && docs.length > 0 ? (
        <ul className="indexing-list" aria-label="Documents in progress">
          {docs.slice(0, 20).map((d) => (
            <li key={d.id}>
              <div className="hit-head">
                <span>
                  {d.title} <span className="muted small">in {where(d.data_source_id)}</span>
                </span>
                <Status value={d.status} />
              </div>
            </li>
          ))}
          {docs.length > 20 ? <li className="muted">and {docs.length - 20} more</li> : null}
        </ul>
      ) : null}
    </section>
  );
}
