// Search analytics (issue 29): per collection, volume and latency over time (a bar chart with the
// numbers as a table), the top queries, the queries that found nothing with an action that makes
// benchmark cases from their clicks or synonyms (analytics-synonym.tsx), and the workspace's
// logging switch. Console searches (the
// playground) are left out unless asked for.
import { useEffect, useState, type ReactNode } from "react";
import { api, type Collection } from "../api";
import type { components } from "../../../clients/typescript/src/schema.js";
import { Alert, Notice, Page, percent, useSubmit } from "../ui";
import { AddSynonymForm } from "./analytics-synonym";

type S = components["schemas"];
type Point = S["SearchSeriesPoint"];
type QueryStat = S["QueryStat"];
type Suite = { id: string; name: string; collection_id: string };

function useReports(collectionId: string, interval: string, includeConsole: boolean, version: number) {
  const [data, setData] = useState<{ series: Point[]; top: QueryStat[]; zero: QueryStat[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const q = new URLSearchParams({ include_console: String(includeConsole) });
    if (collectionId) q.set("collection_id", collectionId);
    const from = new Date(Date.now() - (interval === "hour" ? 2 : 30) * 86_400_000).toISOString();
    Promise.all([
      api<S["SearchSeries"]>("GET", `/analytics/searches?${q}&interval=${interval}&from=${encodeURIComponent(from)}`),
      api<S["QueryStats"]>("GET", `/analytics/queries?${q}&sort=count&limit=10`),
      api<S["QueryStats"]>("GET", `/analytics/queries?${q}&sort=zero_results&limit=10`),
    ]).then(([series, top, zero]) => setData({ series: series.data, top: top.data, zero: zero.data }), setError);
  }, [collectionId, interval, includeConsole, version]);
  return { data, error };
}

function VolumeChart({ points }: { points: Point[] }) {
  const max = Math.max(1, ...points.map((p) => p.searches));
  const w = 100 / Math.max(1, points.length);
  return (
    <svg className="analytics-chart" viewBox="0 0 100 40" preserveAspectRatio="none" role="img" aria-label="Searches per interval">
      {points.map((p, i) => (
        <rect key={p.start} x={i * w + w * 0.1} width={w * 0.8} y={40 - (p.searches / max) * 38} height={(p.searches / max) * 38} className="bar" />
      ))}
    </svg>
  );
}

function QueryTable({ rows, caption, action }: { rows: QueryStat[]; caption: string; action?: (q: QueryStat) => ReactNode }) {
  if (rows.length === 0) return <p>No queries yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Query</th>
            <th scope="col">Searches</th>
            <th scope="col">No results</th>
            <th scope="col">Click-through</th>
            {action ? <th scope="col">Action</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.query}>
              <td>{r.query}</td>
              <td>{r.count}</td>
              <td>{r.zero_results}</td>
              <td>{percent(r.ctr)}</td>
              {action ? <td>{action(r)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LoggingSwitch() {
  const [settings, setSettings] = useState<S["AnalyticsSettings"] | null>(null);
  const form = useSubmit();
  useEffect(() => void api<S["AnalyticsSettings"]>("GET", "/analytics/settings").then(setSettings, () => {}), []);
  if (!settings) return null;
  const toggle = () => form.run(async () => setSettings(await api<S["AnalyticsSettings"]>("PATCH", "/analytics/settings", { logging: !settings.logging })));
  return (
    <section className="card" aria-labelledby="logging-heading">
      <h2 id="logging-heading">Logging</h2>
      <p>
        {settings.logging ? "Searches of this workspace are logged" : "Searches of this workspace are not logged"}; events are kept {settings.retention_days} days.
      </p>
      <Alert error={form.error} />
      <button type="button" className="button button--secondary" onClick={toggle} disabled={form.busy}>
        {settings.logging ? "Turn logging off" : "Turn logging on"}
      </button>
    </section>
  );
}

export function AnalyticsPage() {
  const [collections, setCollections] = useState<Collection[]>([]);
  const [suites, setSuites] = useState<Suite[]>([]);
  const [collectionId, setCollectionId] = useState("");
  const [interval, setIntervalName] = useState("day");
  const [includeConsole, setIncludeConsole] = useState(false);
  const [suiteId, setSuiteId] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [synonymFor, setSynonymFor] = useState<string | null>(null);
  const { data, error } = useReports(collectionId, interval, includeConsole, version);
  const action = useSubmit();
  useEffect(() => {
    void api<Collection[]>("GET", "/collections").then(setCollections, () => {});
    void api<Suite[]>("GET", "/benchmarks").then(setSuites, () => {});
  }, []);
  const usable = suites.filter((s) => !collectionId || s.collection_id === collectionId);
  const actions = (q: QueryStat) => (
    <span className="actions">
      {addCase(q)}
      <button type="button" className="button button--secondary" onClick={() => setSynonymFor(q.query)} aria-label={`Add synonym for ${q.query}`}>
        Add synonym
      </button>
    </span>
  );
  const addCase = (q: QueryStat) => (
    <button
      type="button"
      className="button button--secondary"
      disabled={!suiteId || action.busy}
      onClick={() =>
        action.run(async () => {
          const r = await api<S["AnalyticsBenchmarkCasesOut"]>("POST", "/analytics/benchmark-cases", { suite_id: suiteId, queries: [q.query] });
          setMessage(r.created.length ? `Added "${q.query}" to the suite.` : `"${q.query}" has no clicked document yet.`);
          setVersion((v) => v + 1);
        })
      }
    >
      Add benchmark case
    </button>
  );
  return (
    <Page title="Analytics" lead="What people search, what finds nothing, and what they click.">
      <section className="card" aria-labelledby="filters-heading">
        <h2 id="filters-heading">Show</h2>
        <div className="inline-form">
          <label>
            Collection{" "}
            <select value={collectionId} onChange={(e) => setCollectionId(e.target.value)}>
              <option value="">All collections</option>
              {collections.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Interval{" "}
            <select value={interval} onChange={(e) => setIntervalName(e.target.value)}>
              <option value="hour">Hour (2 days)</option>
              <option value="day">Day (30 days)</option>
            </select>
          </label>
          <label>
            <input type="checkbox" checked={includeConsole} onChange={(e) => setIncludeConsole(e.target.checked)} /> Include console searches
          </label>
        </div>
      </section>
      <Alert error={error ?? action.error} />
      {message ? <Notice tone="success">{message}</Notice> : null}
      {data ? (
        <>
          <section className="card" aria-labelledby="volume-heading">
            <h2 id="volume-heading">Volume and latency</h2>
            <VolumeChart points={data.series} />
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Searches per interval</caption>
                <thead>
                  <tr>
                    <th scope="col">From</th>
                    <th scope="col">Searches</th>
                    <th scope="col">No results</th>
                    <th scope="col">p50 ms</th>
                    <th scope="col">p95 ms</th>
                  </tr>
                </thead>
                <tbody>
                  {data.series.filter((p) => p.searches > 0).map((p) => (
                    <tr key={p.start}>
                      <td>{new Date(p.start).toLocaleString()}</td>
                      <td>{p.searches}</td>
                      <td>{percent(p.zero_result_rate)}</td>
                      <td>{p.p50_ms ?? "—"}</td>
                      <td>{p.p95_ms ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section className="card" aria-labelledby="top-heading">
            <h2 id="top-heading">Top queries</h2>
            <QueryTable rows={data.top} caption="Most searched queries" />
          </section>
          <section className="card" aria-labelledby="zero-heading">
            <h2 id="zero-heading">Queries that found nothing</h2>
            <label>
              Benchmark suite for new cases{" "}
              <select value={suiteId} onChange={(e) => setSuiteId(e.target.value)}>
                <option value="">Choose a suite</option>
                {usable.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            </label>
            <QueryTable rows={data.zero} caption="Queries without results" action={actions} />
            {synonymFor !== null ? (
              <AddSynonymForm
                key={synonymFor}
                query={synonymFor}
                collections={collections}
                collectionId={collectionId}
                onCancel={() => setSynonymFor(null)}
                onDone={(m) => {
                  setMessage(m);
                  setSynonymFor(null);
                }}
              />
            ) : null}
          </section>
        </>
      ) : (
        <p>Loading…</p>
      )}
      <LoggingSwitch />
    </Page>
  );
}
