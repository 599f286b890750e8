// The playground's search controls (issue 28 item 7): the filter builder, facets as checkboxes
// with their counts, the keyword/vector blend slider, and a hit's ranking explanation. The rules
// that turn rows and checks into the API's `filter` live in ../search-filter.ts.
import { useId } from "react";
import type { DataSource, SearchHit } from "../api";
import { byCount, FIELDS, newRow, operatorsFor, rowProblem, type FacetChecks, type FieldKind, type FilterRow, type Join } from "../search-filter";

const FIELD_LABEL: Record<FieldKind, string> = {
  data_source_id: "Data source",
  document_id: "Document id",
  file_type: "File type",
  created_at: "Created at",
  updated_at: "Updated at",
  metadata: "Metadata key…",
};

const PLACEHOLDER: Partial<Record<FieldKind, string>> = { created_at: "2026-01-31", updated_at: "2026-01-31T12:00:00Z", file_type: "markdown" };

function RowEditor({ row, n, sources, onChange, onRemove }: { row: FilterRow; n: number; sources: DataSource[]; onChange: (r: FilterRow) => void; onRemove: () => void }) {
  const id = useId();
  const problem = rowProblem(row);
  const ops = operatorsFor(row.field);
  const setField = (field: FieldKind) => onChange({ ...row, field, op: row.op === "$exists" && field !== "metadata" ? "$eq" : row.op });
  return (
    <li className="filter-row" role="group" aria-label={`Condition ${n}`}>
      <label className="visually-hidden" htmlFor={`${id}-field`}>
        Field of condition {n}
      </label>
      <select id={`${id}-field`} value={row.field} onChange={(e) => setField(e.target.value as FieldKind)}>
        {FIELDS.map((f) => (
          <option key={f} value={f}>
            {FIELD_LABEL[f]}
          </option>
        ))}
      </select>
      {row.field === "metadata" ? (
        <>
          <label className="visually-hidden" htmlFor={`${id}-key`}>
            Metadata key of condition {n}
          </label>
          <input id={`${id}-key`} type="text" placeholder="product" value={row.key} onChange={(e) => onChange({ ...row, key: e.target.value })} />
        </>
      ) : null}
      <label className="visually-hidden" htmlFor={`${id}-op`}>
        Operator of condition {n}
      </label>
      <select id={`${id}-op`} value={row.op} onChange={(e) => onChange({ ...row, op: e.target.value as FilterRow["op"], value: e.target.value === "$exists" ? "true" : row.value })}>
        {ops.map(([op, label]) => (
          <option key={op} value={op}>
            {label}
          </option>
        ))}
      </select>
      <label className="visually-hidden" htmlFor={`${id}-value`}>
        Value of condition {n}
      </label>
      {row.op === "$exists" ? (
        <select id={`${id}-value`} value={row.value} onChange={(e) => onChange({ ...row, value: e.target.value })}>
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      ) : (
        <input
          id={`${id}-value`}
          type="text"
          list={row.field === "data_source_id" ? `${id}-sources` : undefined}
          placeholder={row.op === "$in" || row.op === "$nin" ? "a, b, c" : (PLACEHOLDER[row.field] ?? "value")}
          value={row.value}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(e) => onChange({ ...row, value: e.target.value })}
        />
      )}
      {row.field === "data_source_id" ? (
        <datalist id={`${id}-sources`}>
          {sources.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </datalist>
      ) : null}
      <button type="button" className="button button--ghost" onClick={onRemove} aria-label={`Remove condition ${n}`}>
        Remove
      </button>
      {problem ? (
        <p className="field-error" id={`${id}-problem`}>
          {problem}
        </p>
      ) : null}
    </li>
  );
}

export function FilterBuilder(props: { rows: FilterRow[]; join: Join; sources: DataSource[]; onRows: (rows: FilterRow[]) => void; onJoin: (j: Join) => void }) {
  const { rows, join, sources, onRows, onJoin } = props;
  const set = (i: number, r: FilterRow) => onRows(rows.map((x, j) => (j === i ? r : x)));
  return (
    <fieldset className="field filter-builder">
      <legend>Filter</legend>
      <p className="hint">
        Only documents that match are searched. Numbers and true/false in metadata match both as text and as values; put a value in quotes to match the text only.
      </p>
      {rows.length > 1 ? (
        <div className="field">
          <label htmlFor="filter-join">Documents must match</label>
          <select id="filter-join" value={join} onChange={(e) => onJoin(e.target.value as Join)}>
            <option value="and">every condition (AND)</option>
            <option value="or">any condition (OR)</option>
            <option value="not">none of the conditions (NOT)</option>
          </select>
        </div>
      ) : null}
      <ol className="filter-rows">
        {rows.map((r, i) => (
          <RowEditor key={i} row={r} n={i + 1} sources={sources} onChange={(x) => set(i, x)} onRemove={() => onRows(rows.filter((_, j) => j !== i))} />
        ))}
      </ol>
      <button type="button" className="button button--secondary" onClick={() => onRows([...rows, newRow()])}>
        Add condition
      </button>
    </fieldset>
  );
}

/** the slider's value, or null for the collection's own blend */
export function BlendControl({ ratio, onRatio }: { ratio: number | null; onRatio: (r: number | null) => void }) {
  const shown = ratio ?? 0.5;
  return (
    <fieldset className="field blend">
      <legend>Keyword and vector blend</legend>
      <div className="check">
        <input id="blend-own" type="checkbox" checked={ratio !== null} onChange={(e) => onRatio(e.target.checked ? shown : null)} />
        <label htmlFor="blend-own">Set the blend for this search (otherwise the collection's settings apply)</label>
      </div>
      <div className="blend-slider">
        <span aria-hidden="true">Keywords</span>
        <input
          id="blend"
          type="range"
          min={0}
          max={1}
          step={0.05}
          value={shown}
          disabled={ratio === null}
          aria-label="Semantic ratio"
          aria-valuetext={`${Math.round(shown * 100)}% vector, ${Math.round((1 - shown) * 100)}% keywords`}
          onChange={(e) => onRatio(Number(e.target.value))}
        />
        <span aria-hidden="true">Vectors</span>
        <output htmlFor="blend">{shown.toFixed(2)}</output>
      </div>
    </fieldset>
  );
}

/** Facet counts as checkboxes; a checked value stays listed (with its count when it has one). */
export function FacetPanel(props: { facets: Record<string, Record<string, number>>; checks: FacetChecks; label: (field: string, value: string) => string; onToggle: (field: string, value: string, on: boolean) => void }) {
  const { facets, checks, label, onToggle } = props;
  const fields = [...new Set([...Object.keys(facets), ...Object.keys(checks)])];
  if (fields.length === 0) return null;
  return (
    <section className="card facets" aria-labelledby="facets-heading">
      <h2 id="facets-heading">Narrow by</h2>
      {fields.map((f) => {
        const counts = facets[f] ?? {};
        const checked = checks[f] ?? [];
        const values = [...byCount(counts), ...checked.filter((v) => !(v in counts)).map((v) => [v, 0] as [string, number])];
        return (
          <fieldset key={f} className="facet">
            <legend>{f}</legend>
            {values.length === 0 ? <p className="muted small">No values among the matches.</p> : null}
            <ul>
              {values.map(([v, n]) => (
                <li key={v} className="check">
                  <input id={`facet-${f}-${v}`} type="checkbox" checked={checked.includes(v)} onChange={(e) => onToggle(f, v, e.target.checked)} />
                  <label htmlFor={`facet-${f}-${v}`}>
                    {label(f, v)} <span className="facet-count">({n})</span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        );
      })}
    </section>
  );
}

/** three significant digits: BM25 scores of common words are small, fused scores are not */
const score = (x: number) => x.toPrecision(3);

/** Why a hit ranks where it does (explain: true). */
export function Explanation({ explain }: { explain: NonNullable<SearchHit["explain"]> }) {
  return (
    <details className="explain">
      <summary>Why here?</summary>
      <dl>
        <dt>Keywords (BM25)</dt>
        <dd>{explain.lexical ? `rank ${explain.lexical.rank}, score ${score(explain.lexical.score)}` : "not among the keyword matches"}</dd>
        <dt>Vector</dt>
        <dd>{explain.vector ? `rank ${explain.vector.rank}, similarity ${score(explain.vector.score)}` : "not among the vector matches"}</dd>
        <dt>Fused</dt>
        <dd>{score(explain.fused)}</dd>
        <dt>Rules</dt>
        <dd>{explain.rules.length ? explain.rules.join(", ") : "none"}</dd>
      </dl>
    </details>
  );
}

/** a hit's metadata in one line (the fields a filter or facet can use) */
export function MetadataLine({ metadata }: { metadata?: Record<string, unknown> }) {
  const entries = Object.entries(metadata ?? {}).filter(([, v]) => v !== null && typeof v !== "object");
  if (entries.length === 0) return null;
  return (
    <p className="muted small hit-metadata">
      {entries.slice(0, 8).map(([k, v]) => (
        <span key={k}>
          {k}: {String(v)}
        </span>
      ))}
    </p>
  );
}
