// Search playground: POST /search (hits with highlighted snippets, heading path, score) and
// POST /retrieve (contexts with citations and the ready-to-paste text block) on one collection.
// The collection, query and tab live in the URL, so a result can be linked and reloaded; the
// filter, facets, blend and explanation (search-controls.tsx) are sent from the page's state.
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { api, type Collection, type DataSource, type RetrieveResponse, type SearchHit, type SearchResponse } from "../api";
import { useDraft, withCase } from "../bench-draft";
import { Link, navigate, useLocation } from "../router";
import { useSession } from "../session";
import { facetList, metadataKeys, requestFilter, rowProblem, toggleFacet, type FacetChecks, type FilterRow, type Join } from "../search-filter";
import { Alert, CopyButton, Field, Notice, Page, useSubmit } from "../ui";
import { BlendControl, Explanation, FacetPanel, FilterBuilder, MetadataLine } from "./search-controls";

type Tab = "search" | "retrieve";

/** The snippet with each highlight wrapped in <mark>, built as React nodes (never as HTML). */
export function highlight(text: string, terms: string[]): ReactNode[] {
  const wanted = [...new Set(terms.filter((t) => t.trim().length > 0))].sort((a, b) => b.length - a.length);
  if (wanted.length === 0) return [text];
  const escaped = wanted.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // whole words only: "out" must not light up inside "about"
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(${escaped.join("|")})(?![\\p{L}\\p{N}])`, "giu");
  return text.split(re).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
}

function HeadingPath({ path }: { path?: string[] }) {
  if (!path?.length) return null;
  return (
    <p className="heading-path">
      <span className="visually-hidden">Section: </span>
      {path.join(" › ")}
    </p>
  );
}

/** What the builder, facets, slider and explain box add to a request, as last applied. */
interface Extras {
  filter?: Record<string, unknown>;
  facets?: string[];
  hybrid?: { semantic_ratio: number };
  explain?: boolean;
}

const DEFAULT_FACETS = "file_type, data_source_id";

/** The playground's controls; `apply` validates them and makes them the next request's extras. */
function useControls() {
  const [rows, setRows] = useState<FilterRow[]>([]);
  const [join, setJoin] = useState<Join>("and");
  const [checks, setChecks] = useState<FacetChecks>({});
  const [facetText, setFacetText] = useState(DEFAULT_FACETS);
  const [ratio, setRatio] = useState<number | null>(null);
  const [explain, setExplain] = useState(false);
  const [applied, setApplied] = useState<Extras>({ facets: facetList(DEFAULT_FACETS) });
  function apply(next: { checks?: FacetChecks; facetText?: string } = {}): boolean {
    if (rows.some((r) => rowProblem(r))) return false;
    const facets = facetList(next.facetText ?? facetText);
    setApplied({
      filter: requestFilter(rows, join, next.checks ?? checks),
      facets: facets.length ? facets : undefined,
      hybrid: ratio === null ? undefined : { semantic_ratio: ratio },
      explain: explain || undefined,
    });
    return true;
  }
  const toggle = (field: string, value: string, on: boolean) => {
    const next = toggleFacet(checks, field, value, on);
    setChecks(next);
    apply({ checks: next });
  };
  const addFacet = (field: string) => {
    const text = [...facetList(facetText), field].join(", ");
    setFacetText(text);
    apply({ facetText: text });
  };
  const state = { rows, join, checks, facetText, ratio, explain };
  const set = { setRows, setJoin, setChecks, setFacetText, setRatio, setExplain };
  return { ...state, ...set, applied, apply, toggle, addFacet };
}
type Controls = ReturnType<typeof useControls>;

/** Runs what the URL asks for (after a submit, a reload, or a shared link), with the applied controls. */
function useRunSearch(p: {
  urlQuery: string;
  urlCollection: string;
  tab: Tab;
  applied: Extras;
  form: ReturnType<typeof useSubmit>;
  setResults: (r: SearchResponse) => void;
  setRetrieved: (r: RetrieveResponse) => void;
}) {
  const { reload } = useSession();
  const { urlQuery, urlCollection, tab, form } = p;
  const extras = JSON.stringify(p.applied);
  useEffect(() => {
    if (!urlQuery || !urlCollection) return;
    const { filter, facets, hybrid, explain } = p.applied;
    void form.run(async () => {
      if (tab === "search") {
        p.setResults(await api<SearchResponse>("POST", "/search", { collection_id: urlCollection, query: urlQuery, top_k: 10, filter, facets, hybrid, explain }));
      } else {
        const body = { collection_id: urlCollection, query: urlQuery, format: "text", context_window: 1, filter, hybrid, explain };
        p.setRetrieved(await api<RetrieveResponse>("POST", "/retrieve", body));
      }
      void reload(); // the query counts toward the monthly usage
    }, ["query", "collection_id"]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [urlQuery, urlCollection, tab, extras]);
}

export function SearchPage() {
  const { search } = useLocation();
  const { me } = useSession();
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [sources, setSources] = useState<DataSource[]>([]);
  const [loadError, setLoadError] = useState<unknown>(null);
  const tab: Tab = search.get("tab") === "retrieve" ? "retrieve" : "search";
  const [collectionId, setCollectionId] = useState(search.get("collection") ?? "");
  const [query, setQuery] = useState(search.get("q") ?? "");
  const [results, setResults] = useState<SearchResponse | null>(null);
  const [retrieved, setRetrieved] = useState<RetrieveResponse | null>(null);
  const form = useSubmit();
  const controls = useControls();

  useEffect(() => {
    api<Collection[]>("GET", "/collections").then((cs) => {
      setCollections(cs);
      setCollectionId((cur) => (cur && cs.some((c) => c.id === cur) ? cur : (cs[0]?.id ?? "")));
    }, setLoadError);
    api<DataSource[]>("GET", "/data-sources").then(setSources, () => {});
  }, []);

  const urlQuery = search.get("q") ?? "";
  const urlCollection = search.get("collection") ?? "";
  useRunSearch({ urlQuery, urlCollection, tab, applied: controls.applied, form, setResults, setRetrieved });

  function go(e: FormEvent | null, nextTab: Tab = tab) {
    e?.preventDefault();
    const q = new URLSearchParams();
    if (collectionId) q.set("collection", collectionId);
    if (query) q.set("q", query);
    if (nextTab === "retrieve") q.set("tab", "retrieve");
    if (!query.trim()) {
      form.setFieldErrors({ query: "Type what you are looking for." });
      return;
    }
    if (!controls.apply()) {
      form.setError(new Error("A filter condition needs changing; see the message under it."));
      return;
    }
    navigate(`/workspace/search?${q}`);
  }

  if (collections && collections.length === 0) {
    return (
      <Page title="Search playground">
        <p>
          There is nothing to search yet. <Link href="/workspace/collections">Create a collection</Link> and upload files first.
        </p>
      </Page>
    );
  }
  const sourceName = (field: string, value: string) => (field === "data_source_id" ? (sources.find((s) => s.id === value)?.name ?? value) : value);
  return (
    <Page title="Search playground" lead="Try queries against a collection, as your users (Search) and your language model (Retrieve) would see them.">
      <Alert error={loadError} />
      <form className="search-form card" onSubmit={(e) => go(e)} noValidate role="search">
        <div className="field">
          <label htmlFor="collection">Collection</label>
          <select
            id="collection"
            name="collection"
            value={collectionId}
            onChange={(e) => {
              setCollectionId(e.target.value);
              controls.setChecks({}); // another collection's values would match nothing
            }}
          >
            {(collections ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.document_count ?? 0} documents)
              </option>
            ))}
          </select>
        </div>
        <Field label="Query" name="query" type="search" value={query} onChange={(e) => setQuery(e.target.value)} error={form.fieldErrors.query} maxLength={2000} />
        <button className="button" type="submit" disabled={form.busy || !collectionId}>
          {form.busy ? "Searching…" : tab === "search" ? "Search" : "Retrieve"}
        </button>
        <RefinePanel controls={controls} sources={sources} />
      </form>

      <Tabs tab={tab} go={go} />
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tabpanel">
        <Alert error={form.error} />
        {tab === "search" ? (
          <>
            {results?.facets ? <FacetPanel facets={results.facets} checks={controls.checks} label={sourceName} onToggle={controls.toggle} /> : null}
            <FacetSuggestions results={results} controls={controls} />
            <SearchResults results={results} tenantId={me?.tenant.id ?? ""} collection={collections?.find((c) => c.id === urlCollection) ?? null} />
          </>
        ) : (
          <RetrieveResults data={retrieved} />
        )}
      </div>
    </Page>
  );
}

/** The filter builder, the facet fields, the blend and the explain switch, folded away until wanted. */
function RefinePanel({ controls: c, sources }: { controls: Controls; sources: DataSource[] }) {
  const active = c.rows.length > 0 || c.ratio !== null || c.explain;
  return (
    <details className="refine" open={active || undefined}>
      <summary>Filter, facets and blend</summary>
      <FilterBuilder rows={c.rows} join={c.join} sources={sources} onRows={c.setRows} onJoin={c.setJoin} />
      <Field
        label="Facets"
        name="facets"
        hint="Fields to count values of, separated by commas: file_type, data_source_id, document_id, created_at, updated_at or metadata.<key>."
        value={c.facetText}
        onChange={(e) => c.setFacetText(e.target.value)}
      />
      <BlendControl ratio={c.ratio} onRatio={c.setRatio} />
      <div className="check">
        <input id="explain" type="checkbox" checked={c.explain} onChange={(e) => c.setExplain(e.target.checked)} />
        <label htmlFor="explain">Explain the ranking of each result</label>
      </div>
      <pre className="filter-json" aria-label="Filter sent to the API">
        {JSON.stringify(requestFilter(c.rows.filter((r) => !rowProblem(r)), c.join, c.checks) ?? {}, null, 2)}
      </pre>
    </details>
  );
}

/** metadata keys of the hits that are not counted yet, one click from being facets */
function FacetSuggestions({ results, controls }: { results: SearchResponse | null; controls: Controls }) {
  const counted = new Set(facetList(controls.facetText));
  const keys = metadataKeys(results?.results ?? []).map((k) => `metadata.${k}`).filter((k) => !counted.has(k)).slice(0, 6);
  if (keys.length === 0) return null;
  return (
    <p className="facet-suggestions">
      <span className="muted">Count values of: </span>
      {keys.map((k) => (
        <button key={k} type="button" className="button button--ghost" onClick={() => controls.addFacet(k)}>
          {k}
        </button>
      ))}
    </p>
  );
}

function Tabs({ tab, go }: { tab: Tab; go: (e: FormEvent | null, t: Tab) => void }) {
  return (
    <div className="tabs" role="tablist" aria-label="Result type">
      {(["search", "retrieve"] as const).map((t) => (
        <button
          key={t}
          type="button"
          role="tab"
          id={`tab-${t}`}
          aria-selected={tab === t}
          aria-controls={`panel-${t}`}
          className={`tab${tab === t ? " tab--active" : ""}`}
          tabIndex={tab === t ? 0 : -1}
          onClick={() => go(null, t)}
          onKeyDown={(e) => {
            // the ARIA tabs pattern: arrows move between tabs, the selected one holds the focus
            if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
            e.preventDefault();
            const next: Tab = t === "search" ? "retrieve" : "search";
            go(null, next);
            requestAnimationFrame(() => document.getElementById(`tab-${next}`)?.focus());
          }}
        >
          {t === "search" ? "Search" : "Retrieve"}
        </button>
      ))}
    </div>
  );
}

function SearchResults({ results, tenantId, collection }: { results: SearchResponse | null; tenantId: string; collection: Collection | null }) {
  const { draft, save } = useDraft(tenantId);
  const [marked, setMarked] = useState<Set<string>>(new Set());
  const [added, setAdded] = useState<string | null>(null);
  // marks belong to one answer: a new query starts from what the draft already says about it
  useEffect(() => {
    const known = draft?.collection_id === collection?.id ? draft?.cases.find((c) => c.query.trim() === results?.query.trim()) : undefined;
    setMarked(new Set(known?.relevant.map((r) => r.id) ?? []));
    setAdded(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [results]);
  if (!results) return <p className="muted">Type a query and press Search.</p>;

  const toggle = (id: string, on: boolean) =>
    setMarked((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  function addCase() {
    if (!collection || !results) return;
    const relevant = results.results.filter((h) => marked.has(h.document_id)).map((h: SearchHit) => ({ id: h.document_id, title: h.title }));
    const replacing = draft && draft.collection_id !== collection.id;
    save(withCase(draft, collection, { query: results.query, relevant }));
    setAdded(replacing ? "Case added to a new draft suite for this collection (the previous draft was for another collection)." : "Case added to the draft suite.");
  }
  const draftCount = draft?.collection_id === collection?.id ? (draft?.cases.length ?? 0) : 0;
  return (
    <>
      <p className="muted" role="status">
        {results.total} {results.total === 1 ? "result" : "results"} for “{results.query}” in {results.took_ms} ms
      </p>
      {results.results.length === 0 ? <p>No document matches. Try other words, or check that the documents are indexed.</p> : null}
      <ol className="hits">
        {results.results.map((h, i) => (
          <li key={`${h.document_id}-${h.chunk_id ?? i}`} className="hit card">
            <div className="hit-head">
              <h2 className="hit-title" id={`hit-title-${i}`}>
                {h.title}
              </h2>
              <span className="score" title="Fused relevance score; higher is better">
                score {h.score.toFixed(3)}
              </span>
            </div>
            <HeadingPath path={h.heading_path} />
            <p className="snippet">{highlight(h.snippet, h.highlights ?? [])}</p>
            <p className="muted small source">{h.source}</p>
            <MetadataLine metadata={h.metadata} />
            {h.explain ? <Explanation explain={h.explain} /> : null}
            {collection ? (
              <div className="check relevant-mark">
                <input
                  id={`relevant-${i}`}
                  type="checkbox"
                  checked={marked.has(h.document_id)}
                  onChange={(e) => toggle(h.document_id, e.target.checked)}
                  aria-describedby={`hit-title-${i}`}
                />
                <label htmlFor={`relevant-${i}`}>Mark as relevant</label>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
      {collection && results.results.length > 0 ? (
        <section className="card bench-tray" aria-labelledby="tray-heading">
          <h2 id="tray-heading">Benchmark from these results</h2>
          <p className="muted">
            Mark the results a good answer must contain, then keep the query as a benchmark case. Benchmarks measure whether later changes keep finding them.
          </p>
          {added ? <Notice tone="success">{added}</Notice> : null}
          <div className="actions">
            <button type="button" className="button button--secondary" disabled={marked.size === 0} onClick={addCase}>
              Add as benchmark case ({marked.size} relevant)
            </button>
            {draftCount > 0 ? (
              <Link className="button" href="/workspace/benchmarks/new">
                Review draft suite ({draftCount} {draftCount === 1 ? "case" : "cases"})
              </Link>
            ) : null}
          </div>
        </section>
      ) : null}
    </>
  );
}

/** documents in citation order (a citation number is per document, by first appearance) */
function citations(data: RetrieveResponse) {
  const number = new Map<string, number>();
  for (const c of data.contexts) if (!number.has(c.document_id)) number.set(c.document_id, c.citation);
  return data.documents
    .map((doc) => ({ n: number.get(doc.document_id) ?? 0, doc }))
    .sort((a, b) => a.n - b.n);
}

function RetrieveResults({ data }: { data: RetrieveResponse | null }) {
  if (!data) return <p className="muted">Type a query and press Retrieve to see what a language model would get.</p>;
  return (
    <>
      <p className="muted" role="status">
        {data.contexts.length} {data.contexts.length === 1 ? "context" : "contexts"} from {data.documents.length}{" "}
        {data.documents.length === 1 ? "document" : "documents"}, about {data.token_estimate} tokens, in {data.took_ms} ms
      </p>
      {data.text ? (
        <section className="card" aria-labelledby="paste-heading">
          <div className="card-head">
            <h2 id="paste-heading">Ready-to-paste text</h2>
            <CopyButton text={data.text} label="Copy text" />
          </div>
          <pre className="paste" tabIndex={0} aria-label="Text block to paste into a prompt">
            {data.text}
          </pre>
        </section>
      ) : null}
      <section aria-labelledby="contexts-heading">
        <h2 id="contexts-heading">Contexts</h2>
        <ol className="contexts">
          {data.contexts.map((c) => (
            <li key={c.id} className={`context card${c.expanded ? " context--expanded" : ""}`}>
              <div className="hit-head">
                <h3 className="hit-title">
                  <span className="citation">[{c.citation}]</span> {c.title}
                </h3>
                <span className="score">{c.expanded ? "neighbour" : `score ${c.score.toFixed(3)}`}</span>
              </div>
              <HeadingPath path={c.heading_path} />
              <p className="context-text">{c.text}</p>
              <p className="muted small source">{c.source}</p>
              {c.explain ? <Explanation explain={c.explain} /> : null}
            </li>
          ))}
        </ol>
      </section>
      {data.documents.length ? (
        <section aria-labelledby="citations-heading">
          <h2 id="citations-heading">Citations</h2>
          <ul className="citations">
            {citations(data).map(({ n, doc }) => (
              <li key={doc.document_id}>
                <span className="citation">[{n}]</span> {doc.title} <span className="muted">— {doc.source}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
