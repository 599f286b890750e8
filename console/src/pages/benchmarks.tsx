// Benchmarks: suites made in the search playground (the draft) or imported from a public question
// set (GET /industry-benchmarks), run on demand (POST /benchmarks/{id}/run), with the latest
// metrics, their history across runs as a small SVG chart (and the same numbers as a table), and
// per-case results naming the relevant documents a run missed; tuning is benchmark-tune.tsx.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from "react";
import {
  api,
  ApiError,
  type BenchmarkCaseResult,
  type BenchmarkMetrics,
  type BenchmarkRun,
  type BenchmarkSuite,
  type Collection,
  type DocumentOut,
  type IndustryBenchmark,
  type IndustryImport,
} from "../api";
import { useDraft } from "../bench-draft";
import { Link, navigate, useLocation } from "../router";
import { useSession } from "../session";
import { Alert, ConfirmAction, Field, formatDate, Notice, Page, percent, TextArea, useSubmit } from "../ui";
import { TuneCard } from "./benchmark-tune";

/** The metrics a person compares, in the order the API documents them. */
const METRICS: { key: keyof BenchmarkMetrics; label: (k: number) => string; hint: string; colour: string }[] = [
  { key: "recall_at_k", label: (k) => `Recall@${k}`, hint: "share of the relevant documents found in the top k", colour: "#1f5fa8" },
  { key: "mrr", label: () => "MRR", hint: "1 / rank of the first relevant result, averaged", colour: "#1b6e3a" },
  { key: "ndcg_at_k", label: (k) => `nDCG@${k}`, hint: "rank-weighted gain of the relevant results", colour: "#a0522d" },
  { key: "hit_rate", label: (k) => `Hit rate@${k}`, hint: "share of queries with at least one relevant result", colour: "#6b3fa0" },
  { key: "precision_at_k", label: (k) => `Precision@${k}`, hint: "share of the top k that is relevant", colour: "#5b6575" },
];

const num = (m: BenchmarkMetrics | null | undefined, key: keyof BenchmarkMetrics) => {
  const v = m?.[key];
  return typeof v === "number" ? v : null;
};

export function BenchmarksPage() {
  const { me } = useSession();
  const { draft } = useDraft(me?.tenant.id ?? "");
  const [suites, setSuites] = useState<BenchmarkSuite[] | null>(null);
  // null while loading: the suites table waits for the names, so it never shows a collection id
  // first and its name a moment later (a failed load shows the ids)
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [sets, setSets] = useState<IndustryBenchmark[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const deleted = useLocation().search.get("deleted");

  useEffect(() => {
    api<BenchmarkSuite[]>("GET", "/benchmarks").then(setSuites, setError);
    api<Collection[]>("GET", "/collections").then(setCollections, () => setCollections([]));
    api<IndustryBenchmark[]>("GET", "/industry-benchmarks").then(setSets, () => setSets([]));
  }, []);
  const names = new Map((collections ?? []).map((c) => [c.id, c.name]));
  const loaded = suites !== null && collections !== null;

  return (
    <Page title="Benchmarks" lead="A benchmark suite is a list of queries with the documents each should find. Run it after changing content or settings to see whether search got better or worse.">
      {deleted ? <Notice tone="success">Suite “{deleted}” deleted.</Notice> : null}
      <Alert error={error} />
      <section className="card" aria-labelledby="new-suite-heading">
        <h2 id="new-suite-heading">New suite</h2>
        <p>
          In the <Link href="/workspace/search">search playground</Link>, run a query, tick the results that are relevant and press “Add as benchmark case”. Repeat for a few queries, then
          create the suite from the draft.
        </p>
        {draft ? (
          <p>
            <Link className="button" href="/workspace/benchmarks/new">
              Review draft suite ({draft.cases.length} {draft.cases.length === 1 ? "case" : "cases"}, {draft.collection_name})
            </Link>
          </p>
        ) : (
          <p className="muted">No draft yet.</p>
        )}
      </section>

      <section className="card" aria-labelledby="suites-heading">
        <h2 id="suites-heading">Suites</h2>
        {!loaded && !error ? <p role="status">Loading…</p> : null}
        {loaded && suites.length === 0 ? <p>No suites yet.</p> : null}
        {loaded && suites.length > 0 ? (
          <div className="table-wrap">
            <table className="suites">
              <thead>
                <tr>
                  <th scope="col">Suite</th>
                  <th scope="col">Collection</th>
                  <th scope="col">Cases</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Recall</th>
                  <th scope="col">MRR</th>
                  <th scope="col">nDCG</th>
                </tr>
              </thead>
              <tbody>
                {suites.map((s) => (
                  <tr key={s.id}>
                    <th scope="row">
                      <Link href={`/workspace/benchmarks/${encodeURIComponent(s.id)}`}>{s.name}</Link>
                    </th>
                    <td data-label="Collection">{names.get(s.collection_id) ?? s.collection_id}</td>
                    <td data-label="Cases">{s.cases.length}</td>
                    <td data-label="Runs">{s.runs.length}</td>
                    <td data-label="Recall">{percent(num(s.latest_metrics, "recall_at_k"))}</td>
                    <td data-label="MRR">{percent(num(s.latest_metrics, "mrr"))}</td>
                    <td data-label="nDCG">{percent(num(s.latest_metrics, "ndcg_at_k"))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="public-heading">
        <h2 id="public-heading">Public question sets</h2>
        <p className="muted">
          Ready-made sets (BEIR) with their documents and relevance judgements. Importing one creates a collection with its documents and a suite; published scores let you compare.
        </p>
        {sets === null ? <p role="status">Loading…</p> : null}
        {sets?.length === 0 ? <p>This server offers no public sets.</p> : null}
        {sets && sets.length > 0 ? (
          <ul className="public-sets">
            {sets.map((set) => (
              <PublicSet key={set.name} set={set} />
            ))}
          </ul>
        ) : null}
      </section>
    </Page>
  );
}

function PublicSet({ set }: { set: IndustryBenchmark }) {
  const [open, setOpen] = useState(false);
  const [maxQueries, setMaxQueries] = useState("50");
  const [maxDocs, setMaxDocs] = useState("1000");
  const form = useSubmit();
  async function submit(e: FormEvent) {
    e.preventDefault();
    const r = await form.run(
      () =>
        api<IndustryImport>("POST", `/industry-benchmarks/${encodeURIComponent(set.name)}/import`, {
          max_queries: Number(maxQueries),
          ...(maxDocs.trim() ? { max_documents: Number(maxDocs) } : {}),
        }),
      ["max_queries", "max_documents"],
    );
    if (r?.suite_id) navigate(`/workspace/benchmarks/${encodeURIComponent(r.suite_id)}?imported=${r.documents}`);
    else if (r) navigate(`/workspace/collections/${encodeURIComponent(r.collection_id)}`);
  }
  const size = [set.size.documents != null ? `${set.size.documents.toLocaleString("en")} documents` : null, set.size.queries != null ? `${set.size.queries.toLocaleString("en")} queries` : null]
    .filter(Boolean)
    .join(", ");
  return (
    <li className="public-set">
      <div className="hit-head">
        <h3 className="hit-title">{set.title}</h3>
        <span className="muted small">
          {set.domain}
          {size ? ` · ${size}` : ""}
        </span>
      </div>
      <p>{set.description}</p>
      {set.published_bm25_ndcg_at_10 != null ? <p className="muted small">Published BM25 nDCG@10: {set.published_bm25_ndcg_at_10.toFixed(3)}</p> : null}
      {set.available_locally ? (
        open ? (
          <form onSubmit={(e) => void submit(e)} noValidate className="import-form">
            <Alert error={form.error} />
            <div className="field-row">
              <Field label="Queries (cases)" name="max_queries" type="number" min={1} max={500} value={maxQueries} onChange={(e) => setMaxQueries(e.target.value)} error={form.fieldErrors.max_queries} />
              <Field
                label="Documents (empty: all)"
                name="max_documents"
                type="number"
                min={1}
                value={maxDocs}
                onChange={(e) => setMaxDocs(e.target.value)}
                error={form.fieldErrors.max_documents}
              />
            </div>
            <div className="actions">
              <button className="button" type="submit" disabled={form.busy}>
                {form.busy ? "Importing…" : `Import ${set.title}`}
              </button>
              <button className="button button--ghost" type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          </form>
        ) : (
          <button type="button" className="button button--secondary" onClick={() => setOpen(true)}>
            Import…
          </button>
        )
      ) : (
        <details className="small">
          <summary>Not on this server: how to add it</summary>
          <p className="muted">{set.download.detail}</p>
        </details>
      )}
    </li>
  );
}

/** Create a suite from the playground's draft. */
export function NewBenchmarkPage() {
  const { me } = useSession();
  const { draft, save } = useDraft(me?.tenant.id ?? "");
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [topK, setTopK] = useState("10");
  const form = useSubmit();

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!draft) return;
    const suite = await form.run(
      () =>
        api<BenchmarkSuite>("POST", "/benchmarks", {
          name,
          description,
          collection_id: draft.collection_id,
          top_k: Number(topK),
          cases: draft.cases.map((c) => ({ query: c.query, relevant_document_ids: c.relevant.map((r) => r.id) })),
        }),
      ["name", "description", "top_k"],
    );
    if (suite) {
      save(null);
      navigate(`/workspace/benchmarks/${encodeURIComponent(suite.id)}?created=1`);
    }
  }
  function removeCase(i: number) {
    if (!draft) return;
    save({ ...draft, cases: draft.cases.filter((_, j) => j !== i) });
  }

  return (
    <Page title="New benchmark suite">
      <p className="breadcrumbs">
        <Link href="/workspace/benchmarks">Benchmarks</Link> › New suite
      </p>
      {!draft ? (
        <p>
          The draft is empty. Mark relevant results in the <Link href="/workspace/search">search playground</Link> and add them as cases first.
        </p>
      ) : (
        <>
          <section className="card" aria-labelledby="cases-heading">
            <h2 id="cases-heading">
              {draft.cases.length} {draft.cases.length === 1 ? "case" : "cases"} on {draft.collection_name}
            </h2>
            <ol className="draft-cases">
              {draft.cases.map((c, i) => (
                <li key={c.query}>
                  <div className="hit-head">
                    <strong className="case-query">“{c.query}”</strong>
                    <button type="button" className="button button--ghost" onClick={() => removeCase(i)} aria-label={`Remove the case “${c.query}”`}>
                      Remove
                    </button>
                  </div>
                  <span className="muted small">Relevant: {c.relevant.map((r) => r.title).join(", ")}</span>
                </li>
              ))}
            </ol>
            <p className="muted small">
              Add more in the <Link href={`/workspace/search?collection=${encodeURIComponent(draft.collection_id)}`}>search playground</Link>.
            </p>
          </section>
          <section className="card" aria-labelledby="suite-form-heading">
            <h2 id="suite-form-heading">Suite</h2>
            <form onSubmit={(e) => void submit(e)} noValidate>
              <Alert error={form.error} />
              <Field label="Suite name" name="name" value={name} onChange={(e) => setName(e.target.value)} error={form.fieldErrors.name} maxLength={200} />
              <TextArea label="Description (optional)" name="description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} error={form.fieldErrors.description} />
              <Field
                label="Results per query (k)"
                name="top_k"
                type="number"
                min={1}
                max={50}
                value={topK}
                onChange={(e) => setTopK(e.target.value)}
                error={form.fieldErrors.top_k}
                hint="Metrics look at the first k results of each query."
              />
              <button className="button" type="submit" disabled={form.busy}>
                {form.busy ? "Creating…" : "Create suite"}
              </button>
            </form>
          </section>
        </>
      )}
    </Page>
  );
}

export function BenchmarkPage({ id }: { id: string }) {
  const [suite, setSuite] = useState<BenchmarkSuite | null>(null);
  const [titles, setTitles] = useState<Map<string, string>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const run = useSubmit();
  const del = useSubmit();
  const params = useLocation().search;

  const load = useCallback(async () => {
    try {
      const s = await api<BenchmarkSuite>("GET", `/benchmarks/${encodeURIComponent(id)}`);
      setSuite(s);
      setError(null);
      return s;
    } catch (err) {
      setError(err);
      return null;
    }
  }, [id]);

  useEffect(() => {
    void load().then((s) => {
      if (!s) return;
      // titles for the per-case results (the 200 most recent documents of the collection)
      api<DocumentOut[]>("GET", `/documents?collection_id=${encodeURIComponent(s.collection_id)}`).then(
        (docs) => setTitles(new Map(docs.map((d) => [d.id, d.title]))),
        () => undefined,
      );
    });
  }, [load]);

  async function runNow() {
    const r = await run.run(() => api<BenchmarkRun>("POST", `/benchmarks/${encodeURIComponent(id)}/run`));
    if (r) await load();
  }
  async function remove() {
    const ok = await del.run(async () => {
      await api("DELETE", `/benchmarks/${encodeURIComponent(id)}`);
      return true;
    });
    if (ok && suite) navigate(`/workspace/benchmarks?deleted=${encodeURIComponent(suite.name)}`);
  }

  if (error instanceof ApiError && error.status === 404) {
    return (
      <Page title="Suite not found">
        <Alert error={error} />
        <Link href="/workspace/benchmarks">Benchmarks</Link>
      </Page>
    );
  }
  const latest = suite?.runs.find((r) => r.status === "completed") ?? null;
  const newest = suite?.runs[0] ?? null;
  return (
    <Page title={suite?.name ?? "Loading suite…"} lead={suite?.description || undefined}>
      <p className="breadcrumbs">
        <Link href="/workspace/benchmarks">Benchmarks</Link> › {suite?.name ?? id}
      </p>
      {params.get("created") ? <Notice tone="success">Suite created. Run it to get its first scores.</Notice> : null}
      {params.get("imported") ? <Notice tone="success">Imported {params.get("imported")} documents; they are being indexed. Run the suite once indexing has finished.</Notice> : null}
      <Alert error={error} />
      {suite ? (
        <>
          <section className="card" aria-labelledby="run-heading">
            <div className="card-head">
              <h2 id="run-heading">Run</h2>
              <span className="muted">
                {suite.cases.length} {suite.cases.length === 1 ? "case" : "cases"} · top {suite.top_k} ·{" "}
                <Link href={`/workspace/search?collection=${encodeURIComponent(suite.collection_id)}`}>search its collection</Link>
              </span>
            </div>
            <p className="muted">A run sends every case through search now; its queries count toward this month’s usage.</p>
            <Alert error={run.error} />
            {newest?.status === "failed" ? <Alert>The last run failed: {newest.error}</Alert> : null}
            <button type="button" className="button" onClick={() => void runNow()} disabled={run.busy}>
              {run.busy ? `Running ${suite.cases.length} queries…` : "Run benchmark"}
            </button>
          </section>
          {latest ? <MetricsCard run={latest} /> : <p className="muted">No completed run yet.</p>}
          {suite.runs.filter((r) => r.status === "completed").length > 0 ? <History runs={suite.runs} /> : null}
          {latest ? <CaseResults run={latest} titles={titles} /> : null}
          <TuneCard suiteId={suite.id} cases={suite.cases.length} />
          <section className="card" aria-labelledby="delete-suite-heading">
            <h2 id="delete-suite-heading">Delete this suite</h2>
            <p className="muted">Deletes the suite, its cases and its run history. The collection and its documents are not touched.</p>
            <Alert error={del.error} />
            <ConfirmAction label="Delete suite" confirmLabel="Yes, delete the suite" question={`Delete “${suite.name}” and its ${suite.runs.length} runs?`} onConfirm={() => void remove()} busy={del.busy} />
          </section>
        </>
      ) : null}
    </Page>
  );
}

function MetricsCard({ run }: { run: BenchmarkRun }) {
  const m = run.metrics;
  const k = m.k ?? run.top_k;
  return (
    <section className="card" aria-labelledby="metrics-heading">
      <div className="card-head">
        <h2 id="metrics-heading">Latest scores</h2>
        <span className="muted">
          {formatDate(run.completed_at ?? run.created_at)} · {run.query_count} queries{m.mode ? ` · ${m.mode} search` : ""}
        </span>
      </div>
      <dl className="metrics">
        {METRICS.map((x) => (
          <div key={x.key} className="metric">
            <dt title={x.hint}>{x.label(k)}</dt>
            <dd>{percent(num(m, x.key))}</dd>
          </div>
        ))}
        <div className="metric">
          <dt title="median and 95th percentile per query">Latency p50 / p95</dt>
          <dd className="metric-small">
            {ms(m.latency_ms?.p50)} / {ms(m.latency_ms?.p95)}
          </dd>
        </div>
      </dl>
      {m.cases_missing_documents ? (
        <p className="muted small">{m.cases_missing_documents} case(s) name relevant documents that are no longer in the collection.</p>
      ) : null}
    </section>
  );
}

const ms = (v: number | null | undefined) => (v == null ? "—" : `${v < 10 ? v.toFixed(1) : Math.round(v)} ms`);

const CASE_OUTCOME = { pass: "All found", warn: "Partly found", fail: "None found" } as const;

const CHART = { w: 640, h: 220, left: 44, right: 16, top: 16, bottom: 32 };

/** Recall, MRR and nDCG of every completed run, oldest to newest: a line chart and the same numbers as a table. */
function History({ runs }: { runs: BenchmarkRun[] }) {
  const done = useMemo(() => runs.filter((r) => r.status === "completed").slice().reverse(), [runs]);
  const shown = METRICS.slice(0, 3);
  const k = done[done.length - 1]?.metrics.k ?? done[done.length - 1]?.top_k ?? 10;
  const innerW = CHART.w - CHART.left - CHART.right;
  const innerH = CHART.h - CHART.top - CHART.bottom;
  const x = (i: number) => CHART.left + (done.length === 1 ? innerW / 2 : (i * innerW) / (done.length - 1));
  const y = (v: number) => CHART.top + innerH - v * innerH;
  return (
    <section className="card" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <ul className="legend" aria-hidden="true">
        {shown.map((mtr) => (
          <li key={mtr.key}>
            <span className="swatch" style={{ background: mtr.colour }} /> {mtr.label(k)}
          </li>
        ))}
      </ul>
      <svg className="chart" viewBox={`0 0 ${CHART.w} ${CHART.h}`} role="img" aria-label={`Scores of ${done.length} runs, oldest to newest; the table below has the numbers.`}>
        {[0, 0.25, 0.5, 0.75, 1].map((t) => (
          <g key={t}>
            <line x1={CHART.left} x2={CHART.w - CHART.right} y1={y(t)} y2={y(t)} className="chart-grid" />
            <text x={CHART.left - 6} y={y(t) + 4} textAnchor="end" className="chart-label">
              {Math.round(t * 100)}%
            </text>
          </g>
        ))}
        {done.map((r, i) => (
          <text key={r.id} x={x(i)} y={CHART.h - 10} textAnchor="middle" className="chart-label">
            #{i + 1}
          </text>
        ))}
        {shown.map((mtr) => {
          const pts = done.map((r, i) => [x(i), y(num(r.metrics, mtr.key) ?? 0)] as const);
          return (
            <g key={mtr.key}>
              {pts.length > 1 ? <polyline points={pts.map((p) => p.join(",")).join(" ")} fill="none" stroke={mtr.colour} strokeWidth={2} /> : null}
              {pts.map(([px, py], i) => (
                <circle key={i} cx={px} cy={py} r={3.5} fill={mtr.colour} />
              ))}
            </g>
          );
        })}
      </svg>
      <div className="table-wrap">
        <table className="runs">
          <caption className="visually-hidden">Scores per run</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">When</th>
              {shown.map((mtr) => (
                <th scope="col" key={mtr.key}>
                  {mtr.label(k)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {done
              .map((r, i) => ({ r, i }))
              .reverse()
              .map(({ r, i }) => (
                <tr key={r.id}>
                  <th scope="row">#{i + 1}</th>
                  <td data-label="When">{formatDate(r.completed_at ?? r.created_at)}</td>
                  {shown.map((mtr) => (
                    <td key={mtr.key} data-label={mtr.label(k)}>
                      {percent(num(r.metrics, mtr.key))}
                    </td>
                  ))}
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function CaseResults({ run, titles }: { run: BenchmarkRun; titles: Map<string, string> }) {
  const title = (id: string) => titles.get(id) ?? id;
  const results = run.results as BenchmarkCaseResult[];
  const missedOf = (c: BenchmarkCaseResult) => {
    const found = new Set(c.returned.filter((r) => r.relevant).map((r) => r.document_id));
    return c.relevant_document_ids.filter((d) => !found.has(d));
  };
  const failing = results.filter((c) => missedOf(c).length > 0).length;
  return (
    <section className="card" aria-labelledby="cases-result-heading">
      <div className="card-head">
        <h2 id="cases-result-heading">Per case</h2>
        <span className="muted">{failing === 0 ? "Every relevant document was found." : `${failing} of ${results.length} cases missed something.`}</span>
      </div>
      <div className="table-wrap">
        <table className="cases">
          <thead>
            <tr>
              <th scope="col">Query</th>
              <th scope="col">Found</th>
              <th scope="col">First relevant at</th>
              <th scope="col">Missed</th>
            </tr>
          </thead>
          <tbody>
            {results.map((c) => {
              const missed = missedOf(c);
              const first = c.returned.find((r) => r.relevant)?.rank;
              return (
                <tr key={c.case_id}>
                  <th scope="row">{c.query}</th>
                  <td data-label="Found">
                    <CaseOutcome tone={missed.length === 0 ? "pass" : c.returned.some((r) => r.relevant) ? "warn" : "fail"} /> {c.relevant_document_ids.length - missed.length} of{" "}
                    {c.relevant_document_ids.length}
                  </td>
                  <td data-label="First relevant at">{first ? `rank ${first}` : `not in the top ${run.top_k}`}</td>
                  <td data-label="Missed">
                    {missed.length === 0 ? (
                      "—"
                    ) : (
                      <ul className="missed">
                        {missed.map((d) => (
                          <li key={d}>
                            {title(d)}
                            {c.missing_document_ids.includes(d) ? <span className="muted small"> (no longer in the collection)</span> : null}
                          </li>
                        ))}
                      </ul>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function CaseOutcome({ tone }: { tone: keyof typeof CASE_OUTCOME }) {
  return <span className={`status status--${tone}`}>{CASE_OUTCOME[tone]}</span>;
}
