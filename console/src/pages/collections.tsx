// Collections: create one (with an upload data source attached), then upload files into it and
// watch its documents go from queued to indexed.
import { useCallback, useEffect, useRef, useState, type DragEvent, type FormEvent } from "react";
import { api, ApiError, uploadFile, type Capabilities, type Collection, type DataSource, type DocumentOut } from "../api";
import { GitSourcePanel } from "./git-source";
import { Link, navigate, useLocation } from "../router";
import { SynonymsPanel } from "./synonyms";
import { LanguagePanel, LanguageSelect } from "./language";
import { DEFAULT_LANGUAGE, languageLabel } from "../languages";
import { Alert, ConfirmAction, Field, formatBytes, formatDate, messageOf, Notice, Page, Status, TextArea, usePoll, useSubmit } from "../ui";

export function CollectionsPage() {
  const deleted = useLocation().search.get("deleted");
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const form = useSubmit();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [withUpload, setWithUpload] = useState(true);
  const [language, setLanguage] = useState(DEFAULT_LANGUAGE);

  useEffect(() => {
    api<Collection[]>("GET", "/collections").then(setCollections, setError);
  }, []);

  async function create(e: FormEvent) {
    e.preventDefault();
    const created = await form.run(async () => {
      // English is the default: leave it out, as the form always did
      const c = await api<Collection>("POST", "/collections", { name, description, ...(language === DEFAULT_LANGUAGE ? {} : { language }) });
      if (withUpload) {
        try {
          await api<DataSource>("POST", "/data-sources", { name: `${name} uploads`.slice(0, 200), source_type: "upload", collection_ids: [c.id] });
        } catch (err) {
          // the collection exists: open it and say what is missing rather than failing the form
          navigate(`/workspace/collections/${encodeURIComponent(c.id)}?source_error=${encodeURIComponent(messageOf(err))}`);
          return null;
        }
      }
      return c;
    }, ["name", "description", "language"]);
    if (created) navigate(`/workspace/collections/${encodeURIComponent(created.id)}?created=1`);
  }

  return (
    <Page title="Collections" lead="A collection groups data sources; search and retrieve run against one collection.">
      {deleted ? <Notice tone="success">Collection “{deleted}” deleted. Its data sources and documents are kept.</Notice> : null}
      <section className="card" aria-labelledby="new-collection">
        <h2 id="new-collection">New collection</h2>
        <form onSubmit={(e) => void create(e)} noValidate>
          <Alert error={form.error} />
          <Field label="Name" name="name" value={name} onChange={(e) => setName(e.target.value)} error={form.fieldErrors.name} required />
          <TextArea label="Description (optional)" name="description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} error={form.fieldErrors.description} />
          <LanguageSelect value={language} onChange={setLanguage} error={form.fieldErrors.language} />
          <div className="check">
            <input id="with-upload" type="checkbox" checked={withUpload} onChange={(e) => setWithUpload(e.target.checked)} />
            <label htmlFor="with-upload">Attach an upload data source, so files can be added right away</label>
          </div>
          <button className="button" type="submit" disabled={form.busy}>
            {form.busy ? "Creating…" : "Create collection"}
          </button>
        </form>
      </section>

      <section className="card" aria-labelledby="all-collections">
        <h2 id="all-collections">Your collections</h2>
        <Alert error={error} />
        {collections === null && !error ? <p role="status">Loading…</p> : null}
        {collections?.length === 0 ? <p>No collections yet.</p> : null}
        {collections && collections.length > 0 ? (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Documents</th>
                  <th scope="col">Indexed</th>
                  <th scope="col">Sources</th>
                  <th scope="col">Language</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {collections.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">
                      <Link href={`/workspace/collections/${encodeURIComponent(c.id)}`}>{c.name}</Link>
                    </th>
                    <td>{c.document_count ?? 0}</td>
                    <td>{c.indexed_count ?? 0}</td>
                    <td>{c.data_source_count ?? 0}</td>
                    <td>{languageLabel(c.language ?? DEFAULT_LANGUAGE)}</td>
                    <td>{formatDate(c.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
    </Page>
  );
}

const PENDING = new Set(["queued", "processing"]);

export function CollectionPage({ id }: { id: string }) {
  const [collection, setCollection] = useState<Collection | null>(null);
  const [sources, setSources] = useState<DataSource[]>([]);
  const [allSources, setAllSources] = useState<DataSource[]>([]);
  const [documents, setDocuments] = useState<DocumentOut[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const params = useLocation().search;

  const load = useCallback(async () => {
    try {
      const [c, s, d, all] = await Promise.all([
        api<Collection>("GET", `/collections/${encodeURIComponent(id)}`),
        api<DataSource[]>("GET", `/data-sources?collection_id=${encodeURIComponent(id)}`),
        api<DocumentOut[]>("GET", `/documents?collection_id=${encodeURIComponent(id)}`),
        api<DataSource[]>("GET", "/data-sources"),
      ]);
      setCollection(c);
      setSources(s);
      setAllSources(all);
      setDocuments(d);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [id]);

  useEffect(() => {
    void load();
  }, [load]);

  // while anything is queued or processing, or a source syncs (a git sync before its first file), look again every 1.5 s
  usePoll((documents?.some((d) => PENDING.has(d.status)) ?? false) || sources.some((s) => s.status === "syncing"), load);

  if (error instanceof ApiError && error.status === 404) {
    return (
      <Page title="Collection not found">
        <Alert error={error} />
        <Link href="/workspace/collections">All collections</Link>
      </Page>
    );
  }
  const uploadSources = sources.filter((s) => s.source_type === "upload");
  return (
    <Page title={collection?.name ?? "Loading collection…"} lead={collection?.description || undefined}>
      <p className="breadcrumbs">
        <Link href="/workspace/collections">Collections</Link> › {collection?.name ?? id}
      </p>
      {params.get("created") ? <Notice tone="success">Collection created. Add files below.</Notice> : null}
      {params.get("source_error") ? <Alert>The collection was created, but its upload source was not: {params.get("source_error")}</Alert> : null}
      <Alert error={error} />
      {collection ? (
        <>
          <UploadPanel collection={collection} sources={uploadSources} onChange={() => void load()} />
          <GitSourcePanel collection={collection} sources={sources.filter((s) => s.source_type === "git")} onChange={() => void load()} />
          <DocumentsTable documents={documents} sources={sources} />
          {collection && (documents?.length ?? 0) > 0 ? (
            <p>
              <Link className="button button--secondary" href={`/workspace/search?collection=${encodeURIComponent(collection.id)}`}>
                Search this collection
              </Link>
            </p>
          ) : null}
          <SourcesPanel collection={collection} sources={sources} all={allSources} onChange={() => void load()} />
          <SynonymsPanel collection={collection} />
          <LanguagePanel collection={collection} sources={sources} onSaved={() => void load()} />
          <SettingsPanel collection={collection} onSaved={setCollection} />
        </>
      ) : null}
    </Page>
  );
}

interface Outcome {
  key: string;
  name: string;
  size: number;
  state: "uploading" | "accepted" | "refused";
  message: string;
}

function explain(err: unknown, file: File): string {
  if (!(err instanceof ApiError)) return messageOf(err);
  switch (err.status) {
    case 413:
      return `Too large (413): ${err.message}`;
    case 415:
      return `Unsupported file type (415): ${err.message}`;
    case 422:
      return `Refused (422): ${err.issues.map((i) => i.msg).join(" ") || err.message}`;
    case 429:
      return `Plan limit reached (429): ${err.message}`;
    case 403:
      return `Not allowed (403): ${err.message}`;
    default:
      return `${file.name} was refused (${err.status || "no answer"}): ${err.message}`;
  }
}

function UploadPanel({ collection, sources, onChange }: { collection: Collection; sources: DataSource[]; onChange: () => void }) {
  const [sourceId, setSourceId] = useState<string>("");
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const [dragging, setDragging] = useState(false);
  const [caps, setCaps] = useState<Capabilities | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const addSource = useSubmit();

  useEffect(() => {
    api<Capabilities>("GET", "/capabilities").then(setCaps, () => setCaps(null));
  }, []);
  const chosen = sources.find((s) => s.id === sourceId) ?? sources[0];

  async function createSource() {
    const s = await addSource.run(() =>
      api<DataSource>("POST", "/data-sources", { name: `${collection.name} uploads`.slice(0, 200), source_type: "upload", collection_ids: [collection.id] }),
    );
    if (s) {
      setSourceId(s.id);
      onChange();
    }
  }

  async function send(files: File[]) {
    if (!chosen || files.length === 0) return;
    const batch = files.map((f, i) => ({ key: `${Date.now()}-${i}-${f.name}`, name: f.name, size: f.size, state: "uploading" as const, message: "Uploading…" }));
    setOutcomes((prev) => [...batch, ...prev]);
    const set = (key: string, o: Partial<Outcome>) => setOutcomes((prev) => prev.map((x) => (x.key === key ? { ...x, ...o } : x)));
    // one request per file: each file gets its own answer (a 415 for one does not hide the others)
    for (const [i, file] of files.entries()) {
      const key = batch[i].key;
      if (caps && file.size > caps.max_upload_bytes) {
        set(key, { state: "refused", message: `Too large (413): ${formatBytes(file.size)}; files may be at most ${formatBytes(caps.max_upload_bytes)}. Split it or upload a smaller file.` });
        continue;
      }
      try {
        const docs = await uploadFile(chosen.id, file);
        const failed = docs.find((d) => d.status === "failed");
        if (failed) set(key, { state: "refused", message: `Not indexed: ${failed.error ?? "the file could not be read."}` });
        else set(key, { state: "accepted", message: "Accepted: queued for indexing." });
      } catch (err) {
        set(key, { state: "refused", message: explain(err, file) });
      }
      onChange();
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void send([...e.dataTransfer.files]);
  };

  return (
    <section className="card" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload files</h2>
      {sources.length === 0 ? (
        <>
          <p>This collection has no upload data source yet.</p>
          <Alert error={addSource.error} />
          <button type="button" className="button" onClick={() => void createSource()} disabled={addSource.busy}>
            Add an upload data source
          </button>
        </>
      ) : (
        <>
          {sources.length > 1 ? (
            <div className="field">
              <label htmlFor="upload-source">Data source</label>
              <select id="upload-source" value={chosen?.id} onChange={(e) => setSourceId(e.target.value)}>
                {sources.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <p className="muted">
              Into data source <strong>{chosen?.name}</strong>
            </p>
          )}
          <div
            className={`dropzone${dragging ? " dropzone--active" : ""}`}
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
          >
            <label htmlFor="upload-files">Choose files, or drop them here</label>
            <input
              ref={input}
              id="upload-files"
              type="file"
              multiple
              onChange={(e) => {
                void send([...(e.target.files ?? [])]);
                e.target.value = "";
              }}
            />
            <p className="hint">
              Up to {caps ? formatBytes(caps.max_upload_bytes) : "50 MB"} a file.
              {caps?.file_types?.length ? ` Types: ${caps.file_types.join(", ")}.` : null}
            </p>
          </div>
          {outcomes.length ? (
            <ul className="outcomes" aria-label="Upload results" aria-live="polite">
              {outcomes.map((o) => (
                <li key={o.key} className={`outcome outcome--${o.state}`}>
                  <span className="outcome-name">{o.name}</span> <span className="muted">({formatBytes(o.size)})</span>
                  <span className="outcome-message">{o.message}</span>
                </li>
              ))}
            </ul>
          ) : null}
        </>
      )}
    </section>
  );
}

function DocumentsTable({ documents, sources }: { documents: DocumentOut[] | null; sources: DataSource[] }) {
  const names = new Map(sources.map((s) => [s.id, s.name]));
  return (
    <section className="card" aria-labelledby="documents-heading">
      <h2 id="documents-heading">Documents</h2>
      {documents === null ? <p role="status">Loading…</p> : null}
      {documents?.length === 0 ? <p>No documents yet.</p> : null}
      {documents && documents.length > 0 ? (
        <div className="table-wrap">
          <table className="documents">
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Status</th>
                <th scope="col">Chunks</th>
                <th scope="col">Size</th>
                <th scope="col">Source</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {documents.map((d) => (
                <tr key={d.id}>
                  <th scope="row">
                    <Link href={`/workspace/documents/${encodeURIComponent(d.id)}`}>{d.title}</Link>
                    <div className="muted small">{d.source}</div>
                  </th>
                  <td data-label="Status">
                    <Status value={d.status} />
                    {d.error ? <div className="field-error small">{d.error}</div> : null}
                  </td>
                  <td data-label="Chunks">{d.chunk_count ?? "—"}</td>
                  <td data-label="Size">{d.size_bytes != null ? formatBytes(d.size_bytes) : "—"}</td>
                  <td data-label="Source">{names.get(d.data_source_id) ?? d.data_source_id}</td>
                  <td data-label="Added">{formatDate(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** The collection's data sources: attach another, detach one (its documents stay), delete one (its documents go). */
function SourcesPanel({ collection, sources, all, onChange }: { collection: Collection; sources: DataSource[]; all: DataSource[]; onChange: () => void }) {
  const attached = new Set(sources.map((s) => s.id));
  const others = all.filter((s) => !attached.has(s.id));
  const [pick, setPick] = useState("");
  const attach = useSubmit();
  const [done, setDone] = useState<string | null>(null);
  const chosen = others.find((s) => s.id === pick) ?? others[0];

  async function doAttach(e: FormEvent) {
    e.preventDefault();
    if (!chosen) return;
    const ok = await attach.run(async () => {
      await api("PUT", `/collections/${encodeURIComponent(collection.id)}/data-sources/${encodeURIComponent(chosen.id)}`);
      return true;
    });
    if (ok) {
      setDone(`Attached “${chosen.name}”: its documents are now searched in this collection.`);
      setPick("");
      onChange();
    }
  }

  return (
    <section className="card" aria-labelledby="sources-heading">
      <h2 id="sources-heading">Data sources</h2>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {sources.length === 0 ? <p>No data source is attached, so there is nothing to search here.</p> : null}
      {sources.length > 0 ? (
        <div className="table-wrap">
          <table className="sources">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Documents</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sources.map((s) => (
                <SourceRow key={s.id} collection={collection} source={s} onChange={onChange} onDone={setDone} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {others.length > 0 ? (
        <form className="inline-form" onSubmit={(e) => void doAttach(e)} noValidate>
          <Alert error={attach.error} />
          <div className="field">
            <label htmlFor="attach-source">Attach a data source of this workspace</label>
            <select id="attach-source" value={chosen?.id ?? ""} onChange={(e) => setPick(e.target.value)}>
              {others.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({s.source_type}, {s.document_count ?? 0} documents)
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button--secondary" disabled={attach.busy}>
            Attach
          </button>
        </form>
      ) : null}
    </section>
  );
}

function SourceRow({ collection, source, onChange, onDone }: { collection: Collection; source: DataSource; onChange: () => void; onDone: (msg: string) => void }) {
  const act = useSubmit();
  const shared = (source.collection_ids?.length ?? 1) > 1;
  async function detach() {
    const ok = await act.run(async () => {
      await api("DELETE", `/collections/${encodeURIComponent(collection.id)}/data-sources/${encodeURIComponent(source.id)}`);
      return true;
    });
    if (ok) {
      onDone(`Detached “${source.name}”. Its documents are kept and stay indexed for other collections.`);
      onChange();
    }
  }
  async function remove() {
    const ok = await act.run(async () => {
      await api("DELETE", `/data-sources/${encodeURIComponent(source.id)}`);
      return true;
    });
    if (ok) {
      onDone(`Deleted “${source.name}” and its documents.`);
      onChange();
    }
  }
  return (
    <tr>
      <th scope="row">
        {source.name}
        {shared ? <div className="muted small">also in {(source.collection_ids?.length ?? 1) - 1} other collection(s)</div> : null}
      </th>
      <td data-label="Type">{source.source_type === "website" ? "Website" : source.source_type === "git" ? "Git" : "Upload"}</td>
      <td data-label="Status">
        <Status value={source.status} />
      </td>
      <td data-label="Documents">
        {source.document_count ?? 0} ({source.indexed_count ?? 0} indexed)
      </td>
      <td className="row-actions">
        <div className="actions">
          <ConfirmAction
            label="Detach"
            accessibleLabel={`Detach ${source.name}`}
            confirmLabel="Yes, detach"
            question="Detach it? Its documents stay indexed and keep serving other collections; this collection stops searching them."
            onConfirm={() => void detach()}
            busy={act.busy}
          />
          <ConfirmAction
            label="Delete"
            accessibleLabel={`Delete ${source.name}`}
            confirmLabel="Yes, delete source and documents"
            question={`Delete the source and all ${source.document_count ?? 0} of its documents, in every collection? This cannot be undone.`}
            onConfirm={() => void remove()}
            busy={act.busy}
          />
        </div>
        {act.error ? <Alert error={act.error} /> : null}
      </td>
    </tr>
  );
}

/** Rename (PATCH name and description) and delete the collection (its sources and documents stay). */
function SettingsPanel({ collection, onSaved }: { collection: Collection; onSaved: (c: Collection) => void }) {
  const [name, setName] = useState(collection.name);
  const [description, setDescription] = useState(collection.description);
  const save = useSubmit();
  const del = useSubmit();
  const [saved, setSaved] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSaved(false);
    const c = await save.run(() => api<Collection>("PATCH", `/collections/${encodeURIComponent(collection.id)}`, { name, description }), ["name", "description"]);
    if (c) {
      onSaved(c);
      setSaved(true);
    }
  }
  async function remove() {
    const ok = await del.run(async () => {
      await api("DELETE", `/collections/${encodeURIComponent(collection.id)}`);
      return true;
    });
    if (ok) navigate(`/workspace/collections?deleted=${encodeURIComponent(collection.name)}`);
  }
  return (
    <section className="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Collection settings</h2>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Alert error={save.error} />
        {saved ? <Notice tone="success">Saved.</Notice> : null}
        <Field label="Collection name" name="name" value={name} onChange={(e) => setName(e.target.value)} error={save.fieldErrors.name} maxLength={160} />
        <TextArea label="Collection description" name="description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} error={save.fieldErrors.description} />
        <button type="submit" className="button button--secondary" disabled={save.busy}>
          Save changes
        </button>
      </form>
      <h3 className="danger-title">Delete this collection</h3>
      <p className="muted">Deleting a collection keeps its data sources and their documents; they stay available to other collections and can be attached again.</p>
      <Alert error={del.error} />
      <ConfirmAction
        label="Delete collection"
        confirmLabel="Yes, delete the collection"
        question={`Delete “${collection.name}”? Its data sources and documents are kept.`}
        onConfirm={() => void remove()}
        busy={del.busy}
      />
    </section>
  );
}
