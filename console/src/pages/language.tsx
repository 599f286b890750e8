// A collection's language (issue 28 items 5 and 7): the select the create form and the collection
// page share, and the collection page's panel that saves it with PATCH /collections/{id}. A new
// language re-indexes the collection's documents (the answer's `reindex` counts them); a data
// source shared with a collection of another language answers 409, a value outside the list 422,
// and either detail is shown under the select.
import { useId, useState, type FormEvent } from "react";
import { api, ApiError, type Collection, type DataSource } from "../api";
import { DEFAULT_LANGUAGE, LANGUAGE_CHOICES, languageLabel, reindexText, withNames } from "../languages";
import { messageOf, Notice } from "../ui";

const HINT = "How keyword search cuts words: in German, “Häuser” finds “Haus”; Chinese, Japanese and Thai are split into words.";

export function LanguageSelect(props: { value: string; onChange: (code: string) => void; error?: string; disabled?: boolean; label?: string }) {
  const id = useId();
  const options = LANGUAGE_CHOICES.includes(props.value) ? LANGUAGE_CHOICES : [props.value, ...LANGUAGE_CHOICES];
  return (
    <div className={`field${props.error ? " field--invalid" : ""}`}>
      <label htmlFor={id}>{props.label ?? "Language"}</label>
      <p className="hint" id={`${id}-hint`}>
        {HINT}
      </p>
      <select
        id={id}
        name="language"
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        disabled={props.disabled}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${id}-hint ${id}-error` : `${id}-hint`}
      >
        {options.map((code) => (
          <option key={code} value={code}>
            {languageLabel(code)}
          </option>
        ))}
      </select>
      {props.error ? (
        <p className="field-error" id={`${id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/** A refusal in this page's words: a 409 with names for the ids it quotes, a 422's messages. */
async function refusal(err: unknown, sources: DataSource[]): Promise<string> {
  if (err instanceof ApiError && err.status === 409) {
    const names = new Map(sources.map((s) => [s.id, s.name]));
    try {
      for (const c of await api<Collection[]>("GET", "/collections")) names.set(c.id, c.name);
    } catch {
      // the ids stay as the API wrote them
    }
    return withNames(err.message, names);
  }
  if (err instanceof ApiError && err.status === 422 && err.issues.length) return err.issues.map((i) => i.msg).join(" ");
  return messageOf(err);
}

/** The collection page's card: pick a language, save it, see the re-indexing it started. */
export function LanguagePanel({ collection, sources, onSaved }: { collection: Collection; sources: DataSource[]; onSaved: (c: Collection) => void }) {
  const [language, setLanguage] = useState(collection.language ?? DEFAULT_LANGUAGE);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<Collection | null>(null);
  const current = collection.language ?? DEFAULT_LANGUAGE;

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const c = await api<Collection>("PATCH", `/collections/${encodeURIComponent(collection.id)}`, { language });
      setSaved(c);
      onSaved(c);
    } catch (err) {
      setError(await refusal(err, sources));
    } finally {
      setBusy(false);
    }
  }

  const started = reindexText(saved?.reindex);
  return (
    <section className="card" aria-labelledby="language-heading">
      <h2 id="language-heading">Language</h2>
      <p className="muted">
        Now <strong>{languageLabel(current)}</strong>. A new language re-indexes this collection’s documents; until each is indexed again, search answers from
        the old analysis. Collections that share a data source need the same language.
      </p>
      <form onSubmit={(e) => void save(e)} noValidate>
        {saved ? (
          <Notice tone="success">
            Saved: {languageLabel(saved.language ?? DEFAULT_LANGUAGE)}
            {started ? `, ${started}. The documents table shows their progress.` : ". No document needed re-indexing."}
          </Notice>
        ) : null}
        <LanguageSelect
          label="Collection language"
          value={language}
          onChange={(code) => {
            setLanguage(code);
            setError(null);
          }}
          error={error ?? undefined}
          disabled={busy}
        />
        <button type="submit" className="button button--secondary" disabled={busy || language === current}>
          {busy ? "Saving…" : "Save language"}
        </button>
      </form>
    </section>
  );
}
