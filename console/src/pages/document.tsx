// A document and its chunks in order (GET /documents/{id}/chunks): what search and retrieve return,
// each with its heading path, so a person can see how the file was split.
import { useEffect, useState } from "react";
import { api, ApiError, type ChunkList, type DataSource, type DocumentOut } from "../api";
import { Link, navigate } from "../router";
import { Alert, ConfirmAction, formatBytes, formatDate, Page, Status, useSubmit } from "../ui";

const PAGE = 100;

export function DocumentPage({ id }: { id: string }) {
  const [doc, setDoc] = useState<DocumentOut | null>(null);
  const [source, setSource] = useState<DataSource | null>(null);
  const [chunks, setChunks] = useState<ChunkList | null>(null);
  const [limit, setLimit] = useState(PAGE);
  const [error, setError] = useState<unknown>(null);
  const del = useSubmit();

  useEffect(() => {
    api<DocumentOut>("GET", `/documents/${encodeURIComponent(id)}`).then((d) => {
      setDoc(d);
      api<DataSource>("GET", `/data-sources/${encodeURIComponent(d.data_source_id)}`).then(setSource, () => setSource(null));
    }, setError);
  }, [id]);

  useEffect(() => {
    api<ChunkList>("GET", `/documents/${encodeURIComponent(id)}/chunks?limit=${limit}`).then(setChunks, setError);
  }, [id, limit]);

  async function remove() {
    const ok = await del.run(async () => {
      await api("DELETE", `/documents/${encodeURIComponent(id)}`);
      return true;
    });
    const col = source?.collection_ids?.[0];
    if (ok) navigate(col ? `/workspace/collections/${encodeURIComponent(col)}` : "/workspace/collections");
  }

  if (error instanceof ApiError && error.status === 404) {
    return (
      <Page title="Document not found">
        <Alert error={error} />
        <Link href="/workspace/collections">Collections</Link>
      </Page>
    );
  }
  const collectionId = source?.collection_ids?.[0];
  return (
    <Page title={doc?.title ?? "Loading document…"}>
      <p className="breadcrumbs">
        <Link href="/workspace/collections">Collections</Link>
        {collectionId ? (
          <>
            {" "}
            › <Link href={`/workspace/collections/${encodeURIComponent(collectionId)}`}>{source?.name ?? "Collection"}</Link>
          </>
        ) : null}{" "}
        › {doc?.title ?? id}
      </p>
      <Alert error={error} />
      {doc ? (
        <section className="card" aria-labelledby="doc-heading">
          <h2 id="doc-heading" className="visually-hidden">
            About this document
          </h2>
          <dl className="facts">
            <div>
              <dt>Status</dt>
              <dd>
                <Status value={doc.status} />
              </dd>
            </div>
            <div>
              <dt>Source</dt>
              <dd className="source">{doc.source}</dd>
            </div>
            <div>
              <dt>Size</dt>
              <dd>{doc.size_bytes != null ? formatBytes(doc.size_bytes) : "—"}</dd>
            </div>
            <div>
              <dt>Added</dt>
              <dd>{formatDate(doc.created_at)}</dd>
            </div>
          </dl>
          {doc.error ? <Alert>{doc.error}</Alert> : null}
          <Alert error={del.error} />
          <ConfirmAction
            label="Delete document"
            confirmLabel="Yes, delete it"
            question="Delete this document, its stored file and its index entries?"
            onConfirm={() => void remove()}
            busy={del.busy}
          />
        </section>
      ) : null}
      <section aria-labelledby="chunks-heading">
        <h2 id="chunks-heading">Chunks</h2>
        {chunks === null && !error ? <p role="status">Loading chunks…</p> : null}
        {chunks ? (
          <p className="muted" role="status">
            {chunks.total === 0
              ? "No chunks yet: the document is not indexed."
              : `${chunks.total} ${chunks.total === 1 ? "chunk" : "chunks"}${chunks.chunks.length < chunks.total ? `, the first ${chunks.chunks.length} shown` : ""}, in document order.`}
          </p>
        ) : null}
        <ol className="chunks">
          {chunks?.chunks.map((c) => (
            <li key={c.id} className="card chunk">
              <div className="hit-head">
                <h3 className="hit-title">Chunk {c.position + 1}</h3>
                <span className="score">{c.token_count} tokens{c.embedded ? "" : " · no vector yet"}</span>
              </div>
              <p className="heading-path">
                <span className="visually-hidden">Section: </span>
                {c.heading_path.length ? c.heading_path.join(" › ") : "(no heading)"}
              </p>
              <p className="context-text">{c.text}</p>
            </li>
          ))}
        </ol>
        {chunks && chunks.chunks.length < chunks.total && limit < 1000 ? (
          <button type="button" className="button button--secondary" onClick={() => setLimit(Math.min(1000, limit + PAGE * 4))}>
            Show more chunks
          </button>
        ) : null}
      </section>
    </Page>
  );
}
