// Crawl a website: the site check first (POST /crawl/check: robots, sitemap, llms.txt, Markdown
// twin, JavaScript, estimated pages), its suggested limits pre-filled in the crawl form, then the
// job's progress by polling GET /crawl/{id}, with cancel and retry.
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { api, ApiError, type Capabilities, type Collection, type CrawlJob, type CrawlPage, type DataSource, type SiteCheck } from "../api";
import { Link, navigate } from "../router";
import { Alert, Field, formatDate, Notice, Page, Progress, Status, TextArea, useSubmit } from "../ui";

const ACTIVE = new Set(["queued", "running"]);
const NEW_COLLECTION = "__new__";

const yesNo = (b: boolean) => (b ? "Yes" : "No");

/** The check's answers a person decides on, one line each (the API's checks list has the details). */
function summary(c: SiteCheck): { label: string; value: string }[] {
  return [
    { label: "robots.txt", value: c.robots_found ? (c.robots_allowed ? "Found; crawling allowed" : "Found; crawling not allowed") : c.robots_allowed ? "None (everything allowed)" : "Could not be read" },
    { label: "Sitemap", value: c.sitemap_found ? `Found, ${c.sitemap_page_count} page URLs` : "None" },
    { label: "llms.txt", value: c.llms_txt_found ? `Found, ${c.llms_txt_page_count} pages` : "None" },
    { label: "Markdown twin", value: yesNo(c.markdown_twin) },
    { label: "Needs JavaScript", value: yesNo(c.needs_js) },
    { label: "Estimated pages", value: c.estimated_pages === null ? "Unknown" : String(c.estimated_pages) },
  ];
}

const CHECK_NAMES: Record<string, string> = {
  url_policy: "Crawl policy",
  fetch: "Start page",
  content_type: "Content type",
  robots: "robots.txt",
  sitemap: "Sitemap",
  llms_txt: "llms.txt",
  markdown_twin: "Markdown twin",
  javascript: "JavaScript",
  robots_meta: "Robots meta tag",
  scope: "Scope and estimate",
  deadline: "Time limit",
};

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function CrawlPageScreen() {
  const [url, setUrl] = useState("");
  const [checked, setChecked] = useState<SiteCheck | null>(null);
  const check = useSubmit();
  const start = useSubmit();
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [caps, setCaps] = useState<Capabilities | null>(null);
  const [collectionId, setCollectionId] = useState("");
  const [newName, setNewName] = useState("");
  const [pageLimit, setPageLimit] = useState("25");
  const [maxDepth, setMaxDepth] = useState("2");
  const [renderJs, setRenderJs] = useState(false);
  const [includePaths, setIncludePaths] = useState("");
  const [jobs, setJobs] = useState<CrawlJob[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    api<Collection[]>("GET", "/collections").then((cs) => {
      setCollections(cs);
      setCollectionId(cs[0]?.id ?? NEW_COLLECTION);
    }, setError);
    api<Capabilities>("GET", "/capabilities").then(setCaps, () => setCaps(null));
    api<CrawlJob[]>("GET", "/crawl?limit=20").then(setJobs, setError);
  }, []);

  async function runCheck(e: FormEvent) {
    e.preventDefault();
    setChecked(null);
    const r = await check.run(() => api<SiteCheck>("POST", "/crawl/check", { url: url.trim() }), ["url"]);
    if (!r) return;
    setChecked(r);
    // the check's suggestions become the form's starting values
    setPageLimit(String(r.suggested_page_limit));
    setMaxDepth(String(r.suggested_depth));
    setRenderJs(r.needs_js && (caps?.render_js ?? false));
    if (!newName) setNewName(hostOf(r.final_url ?? r.url));
  }

  async function startCrawl(e: FormEvent) {
    e.preventDefault();
    if (!checked) return;
    const job = await start.run(
      async () => {
        let target = collectionId;
        if (target === NEW_COLLECTION) {
          try {
            target = (await api<Collection>("POST", "/collections", { name: newName.trim(), description: `Pages crawled from ${checked.url}` })).id;
          } catch (err) {
            // the collection's 422 names "name": show it under the new collection's name field
            if (err instanceof ApiError && err.status === 422) {
              throw new ApiError(422, err.message, err.issues.map((i) => ({ ...i, loc: ["body", "collection_name"] })));
            }
            throw err;
          }
        }
        const paths = includePaths
          .split("\n")
          .map((p) => p.trim())
          .filter(Boolean);
        return api<CrawlJob>("POST", "/crawl", {
          url: url.trim(),
          collection_id: target,
          page_limit: Number(pageLimit),
          max_depth: Number(maxDepth),
          render_js: renderJs,
          ...(paths.length ? { include_paths: paths } : {}),
        });
      },
      ["url", "collection_name", "page_limit", "max_depth", "render_js", "include_paths"],
    );
    if (job) navigate(`/workspace/crawl/${encodeURIComponent(job.id)}`);
  }

  const numberError = (v: string, name: string) =>
    start.fieldErrors[name] ?? (v !== "" && !/^\d+$/.test(v) ? "Enter a whole number." : undefined);

  return (
    <Page title="Crawl a website" lead="Check a site first: the check reads robots.txt, the sitemap and llms.txt, indexes nothing, and suggests limits for the crawl.">
      <Alert error={error} />
      <section className="card" aria-labelledby="check-heading">
        <h2 id="check-heading">1. Check the site</h2>
        <form onSubmit={(e) => void runCheck(e)} noValidate>
          <Alert error={check.error} />
          <Field
            label="Website address"
            name="url"
            type="url"
            inputMode="url"
            placeholder="https://docs.example.com/"
            value={url}
            onChange={(e) => {
              setUrl(e.target.value);
              setChecked(null); // a check answers for one address
            }}
            error={check.fieldErrors.url ?? start.fieldErrors.url}
            hint="The crawl stays on this site and follows its links, its sitemap and its llms.txt."
            required
          />
          <button className="button" type="submit" disabled={check.busy || !url.trim()}>
            {check.busy ? "Checking…" : "Check site"}
          </button>
        </form>
      </section>

      {checked ? (
        <section className="card" aria-labelledby="result-heading">
          <div className="card-head">
            <h2 id="result-heading">Site check</h2>
            <span className="muted">
              {checked.final_url ?? checked.url} · {checked.elapsed_ms} ms
            </span>
          </div>
          {checked.can_crawl ? (
            <Notice tone="success">This site can be crawled.</Notice>
          ) : (
            <Alert>This site cannot be crawled: {checked.blocked_reason ?? "see the checks below."}</Alert>
          )}
          <dl className="facts" aria-label="Site check summary">
            {summary(checked).map((f) => (
              <div key={f.label}>
                <dt>{f.label}</dt>
                <dd>{f.value}</dd>
              </div>
            ))}
          </dl>
          <ul className="checks" aria-label="Checks">
            {checked.checks.map((c, i) => (
              <li key={`${c.name}-${i}`}>
                <Status value={c.status} /> <strong>{CHECK_NAMES[c.name] ?? c.name}</strong>
                <span className="check-detail">{c.detail}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {checked?.can_crawl ? (
        <section className="card" aria-labelledby="start-heading">
          <h2 id="start-heading">2. Start the crawl</h2>
          <form onSubmit={(e) => void startCrawl(e)} noValidate>
            <Alert error={start.error} />
            <div className="field">
              <label htmlFor="crawl-collection">Into collection</label>
              <select id="crawl-collection" value={collectionId} onChange={(e) => setCollectionId(e.target.value)}>
                {(collections ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
                <option value={NEW_COLLECTION}>A new collection…</option>
              </select>
            </div>
            {collectionId === NEW_COLLECTION ? (
              <Field label="New collection name" name="collection_name" value={newName} onChange={(e) => setNewName(e.target.value)} error={start.fieldErrors.collection_name} maxLength={160} />
            ) : null}
            <div className="field-row">
              <Field
                label="Page limit"
                name="page_limit"
                type="number"
                min={1}
                max={caps?.max_page_limit ?? 20000}
                value={pageLimit}
                onChange={(e) => setPageLimit(e.target.value)}
                error={numberError(pageLimit, "page_limit")}
                hint={`Suggested: ${checked.suggested_page_limit}`}
              />
              <Field
                label="Link depth"
                name="max_depth"
                type="number"
                min={0}
                max={10}
                value={maxDepth}
                onChange={(e) => setMaxDepth(e.target.value)}
                error={numberError(maxDepth, "max_depth")}
                hint={`Suggested: ${checked.suggested_depth}`}
              />
            </div>
            <div className="check">
              <input id="render-js" type="checkbox" checked={renderJs} disabled={!caps?.render_js} onChange={(e) => setRenderJs(e.target.checked)} />
              <label htmlFor="render-js">
                Render pages with JavaScript (slower){caps && !caps.render_js ? " — not available on this server" : ""}
              </label>
            </div>
            {start.fieldErrors.render_js ? <p className="field-error">{start.fieldErrors.render_js}</p> : null}
            <TextArea
              label="Only these paths (optional, one per line)"
              name="include_paths"
              rows={2}
              placeholder="/docs/"
              value={includePaths}
              onChange={(e) => setIncludePaths(e.target.value)}
              error={start.fieldErrors.include_paths ?? start.fieldErrors["include_paths.0"]}
            />
            <button className="button" type="submit" disabled={start.busy}>
              {start.busy ? "Starting…" : "Start crawl"}
            </button>
          </form>
        </section>
      ) : null}

      <section className="card" aria-labelledby="recent-heading">
        <h2 id="recent-heading">Recent crawls</h2>
        {jobs === null && !error ? <p role="status">Loading…</p> : null}
        {jobs?.length === 0 ? <p>No crawls yet.</p> : null}
        {jobs && jobs.length > 0 ? <CrawlTable jobs={jobs} /> : null}
      </section>
    </Page>
  );
}

export function CrawlTable({ jobs }: { jobs: CrawlJob[] }) {
  return (
    <div className="table-wrap">
      <table className="crawls">
        <thead>
          <tr>
            <th scope="col">Site</th>
            <th scope="col">Status</th>
            <th scope="col">Pages</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id}>
              <th scope="row">
                <Link href={`/workspace/crawl/${encodeURIComponent(j.id)}`}>{j.url}</Link>
              </th>
              <td data-label="Status">
                <Status value={j.status} />
              </td>
              <td data-label="Pages">
                {j.pages_crawled} of {j.page_limit}
              </td>
              <td data-label="Started">{formatDate(j.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const STATUS_SENTENCE: Record<string, string> = {
  queued: "Waiting for a crawl worker.",
  running: "Fetching and indexing pages.",
  completed: "Finished: the pages are indexed and searchable.",
  failed: "The crawl stopped with an error. Pages already indexed are kept; retry to resume.",
  cancelled: "Cancelled. Pages already indexed are kept; retry to resume with the remaining page budget.",
};

export function CrawlJobPage({ id }: { id: string }) {
  const [job, setJob] = useState<CrawlJob | null>(null);
  const [source, setSource] = useState<DataSource | null>(null);
  const [failed, setFailed] = useState<CrawlPage[]>([]);
  const [error, setError] = useState<unknown>(null);
  const action = useSubmit();

  const load = useCallback(async () => {
    try {
      const j = await api<CrawlJob>("GET", `/crawl/${encodeURIComponent(id)}`);
      setJob(j);
      setError(null);
      if ((j.pages_failed ?? 0) > 0) setFailed(await api<CrawlPage[]>("GET", `/crawl/${encodeURIComponent(id)}/pages?status=failed&limit=50`));
    } catch (err) {
      setError(err);
    }
  }, [id]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!job) return;
    api<DataSource>("GET", `/data-sources/${encodeURIComponent(job.data_source_id)}`).then(setSource, () => setSource(null));
  }, [job?.data_source_id]); // eslint-disable-line react-hooks/exhaustive-deps

  // progress by polling, once a second, while the crawl is queued or running
  const active = job ? ACTIVE.has(job.status) : false;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => void load(), 1000);
    return () => clearInterval(t);
  }, [active, load]);

  async function act(what: "cancel" | "retry") {
    const j = await action.run(() => api<CrawlJob>("POST", `/crawl/${encodeURIComponent(id)}/${what}`));
    if (j) setJob(j);
  }

  if (error instanceof ApiError && error.status === 404) {
    return (
      <Page title="Crawl not found">
        <Alert error={error} />
        <Link href="/workspace/crawl">All crawls</Link>
      </Page>
    );
  }
  const collectionId = source?.collection_ids?.[0];
  return (
    <Page title={job ? `Crawl of ${hostOf(job.url)}` : "Loading crawl…"}>
      <p className="breadcrumbs">
        <Link href="/workspace/crawl">Crawl</Link> › {job ? hostOf(job.url) : id}
      </p>
      <Alert error={error} />
      {job ? (
        <section className="card" aria-labelledby="progress-heading">
          <div className="card-head">
            <h2 id="progress-heading">Progress</h2>
            <span aria-live="polite">
              <Status value={job.status} />
            </span>
          </div>
          <p className="muted">{job.url}</p>
          <Progress label="Pages crawled" value={job.pages_crawled} max={job.page_limit} text={`${job.pages_crawled} of ${job.page_limit} pages`} />
          <dl className="facts" aria-label="Crawl counts">
            <div>
              <dt>Indexed</dt>
              <dd>{job.pages_indexed ?? "—"}</dd>
            </div>
            <div>
              <dt>Waiting to be indexed</dt>
              <dd>{job.pages_pending ?? "—"}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd>{job.pages_failed ?? 0}</dd>
            </div>
            <div>
              <dt>Link depth</dt>
              <dd>{job.max_depth}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{formatDate(job.started_at ?? job.created_at)}</dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>{formatDate(job.finished_at)}</dd>
            </div>
          </dl>
          <p role="status" className="crawl-status">
            {STATUS_SENTENCE[job.status] ?? job.status}
            {job.error ? ` ${job.error}` : ""}
          </p>
          <Alert error={action.error} />
          <div className="actions">
            {ACTIVE.has(job.status) ? (
              <button type="button" className="button button--danger-ghost" onClick={() => void act("cancel")} disabled={action.busy}>
                Cancel crawl
              </button>
            ) : null}
            {job.status === "failed" || job.status === "cancelled" ? (
              <button type="button" className="button" onClick={() => void act("retry")} disabled={action.busy}>
                Retry
              </button>
            ) : null}
            {collectionId && job.status === "completed" ? (
              <Link className="button" href={`/workspace/search?collection=${encodeURIComponent(collectionId)}`}>
                Search the crawled pages
              </Link>
            ) : null}
            {collectionId ? (
              <Link className="button button--secondary" href={`/workspace/collections/${encodeURIComponent(collectionId)}`}>
                Open the collection
              </Link>
            ) : null}
          </div>
        </section>
      ) : null}
      {failed.length ? (
        <section className="card" aria-labelledby="failed-heading">
          <h2 id="failed-heading">Pages that failed</h2>
          <ul className="failed-pages">
            {failed.map((p) => (
              <li key={p.url}>
                <span className="source">{p.url}</span>
                <span className="field-error small">{p.reason}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </Page>
  );
}
