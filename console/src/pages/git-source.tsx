// A collection's git data sources: add a repository (URL, branch, paths to include) and sync it
// now; later syncs index only the files the new commits changed (POST /data-sources/{id}/sync).
import { useState, type FormEvent } from "react";
import { api, type Collection, type CrawlJob, type DataSource } from "../api";
import { Alert, Field, Notice, Status, useSubmit } from "../ui";

/** "docs/, README.md" or one path a line -> ["docs/", "README.md"] */
const pathsOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean);

/** The repository's name for the source: the URL's last segment without .git. */
const repoName = (url: string) => url.replace(/\/+$/, "").split(/[/:]/).pop()?.replace(/\.git$/, "") || "Repository";

export function GitSourcePanel({ collection, sources, onChange }: { collection: Collection; sources: DataSource[]; onChange: () => void }) {
  const [url, setUrl] = useState("");
  const [branch, setBranch] = useState("");
  const [paths, setPaths] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const { busy, error, run } = useSubmit();

  const sync = (source: DataSource) =>
    run(async () => {
      const job = await api<CrawlJob>("POST", `/data-sources/${encodeURIComponent(source.id)}/sync`);
      setMessage(`Syncing “${source.name}” (job ${job.id}): only the files changed since its last sync are indexed again.`);
      onChange();
    });

  async function add(e: FormEvent) {
    e.preventDefault();
    setMessage(null);
    await run(async () => {
      const configuration = { url: url.trim(), branch: branch.trim() || null, paths: pathsOf(paths) };
      const source = await api<DataSource>("POST", "/data-sources", { name: repoName(url.trim()).slice(0, 200), source_type: "git", configuration, collection_ids: [collection.id] });
      await api<CrawlJob>("POST", `/data-sources/${encodeURIComponent(source.id)}/sync`);
      setUrl("");
      setBranch("");
      setPaths("");
      setMessage(`Added “${source.name}”; its first sync has started.`);
      onChange();
    });
  }

  return (
    <section className="card" aria-labelledby="git-heading">
      <h2 id="git-heading">Git repositories</h2>
      <p className="muted">Markdown, reStructuredText, AsciiDoc, HTML and text files are indexed, each under its path. A sync indexes only the files new commits changed and removes deleted ones.</p>
      {message ? <Notice tone="success">{message}</Notice> : null}
      <Alert error={error} />
      {sources.length > 0 ? (
        <ul>
          {sources.map((s) => (
            <li key={s.id}>
              <strong>{s.name}</strong> <Status value={s.status} /> {s.document_count ?? 0} {(s.document_count ?? 0) === 1 ? "file" : "files"}{" "}
              <button type="button" className="button button--secondary" disabled={busy || s.status === "syncing"} onClick={() => void sync(s)}>
                Sync now
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <form onSubmit={(e) => void add(e)}>
        <Field label="Repository URL" name="git-url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://github.com/acme/handbook.git" hint="Public https:// repositories; ssh URLs are not supported." />
        <Field label="Branch" name="git-branch" value={branch} onChange={(e) => setBranch(e.target.value)} placeholder="main" hint="Leave empty for the repository's default branch." />
        <Field label="Paths to include" name="git-paths" value={paths} onChange={(e) => setPaths(e.target.value)} placeholder="docs/, README.md" hint="Folders or files, separated by commas; empty for the whole repository." />
        <button type="submit" className="button" disabled={busy || !url.trim()}>
          Add and sync
        </button>
      </form>
    </section>
  );
}
