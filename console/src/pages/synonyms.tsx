// The collection page's synonyms editor (issue 28 items 3 and 7): GET and PUT
// /collections/{id}/synonyms as two boxes of lines (synonym-text.ts). Saving replaces the whole
// set and the next search uses it; nothing is reindexed.
import { useEffect, useState, type FormEvent } from "react";
import { api, ApiError, type Collection, type FieldIssue } from "../api";
import { badMappingLine, groupsText, mappingsText, parseSynonyms, type SynonymSet } from "../synonym-text";
import { Alert, Notice, TextArea } from "../ui";

/** The API's 422 issues in the boxes' terms: "Groups, line 2: …", "One-way “pg”: …". */
function issuesText(issues: FieldIssue[], set: SynonymSet): string {
  return issues
    .map((i) => {
      const [, part, at] = i.loc;
      if (part === "groups" && typeof at === "number") return `Groups, line ${at + 1} (${set.groups[at]?.join(", ") ?? ""}): ${i.msg}.`;
      if (part === "mappings") return `One-way “${String(at)}”: ${i.msg}.`;
      return `${i.loc.slice(1).join(".")}: ${i.msg}.`;
    })
    .join(" ");
}

export const synonymsPath = (collectionId: string) => `/collections/${encodeURIComponent(collectionId)}/synonyms`;

export function SynonymsPanel({ collection }: { collection: Collection }) {
  const [groups, setGroups] = useState("");
  const [mappings, setMappings] = useState("");
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<SynonymSet | null>(null);

  useEffect(() => {
    api<SynonymSet>("GET", synonymsPath(collection.id)).then((set) => {
      setGroups(groupsText(set));
      setMappings(mappingsText(set));
      setLoaded(true);
    }, setError);
  }, [collection.id]);

  async function save(e: FormEvent) {
    e.preventDefault();
    setSaved(null);
    const bad = badMappingLine(mappings);
    if (bad) {
      setError(new Error(`One-way, line ${bad}: write it as term => alternative, another.`));
      return;
    }
    const set = parseSynonyms(groups, mappings);
    setBusy(true);
    setError(null);
    try {
      const stored = await api<SynonymSet>("PUT", synonymsPath(collection.id), set);
      setGroups(groupsText(stored));
      setMappings(mappingsText(stored));
      setSaved(stored);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 422 && err.issues.length ? new Error(issuesText(err.issues, set)) : err);
    } finally {
      setBusy(false);
    }
  }

  const count = (s: SynonymSet) => s.groups.length + Object.keys(s.mappings).length;
  return (
    <section className="card" aria-labelledby="synonyms-heading">
      <h2 id="synonyms-heading">Synonyms</h2>
      <p className="muted">
        Words that should find each other in keyword search: a query with “k8s” can also find “Kubernetes”. Changes apply to the next search; nothing is reindexed.
      </p>
      <form onSubmit={(e) => void save(e)} noValidate>
        <Alert error={error} />
        {saved ? <Notice tone="success">Saved {count(saved)} {count(saved) === 1 ? "entry" : "entries"}. The next search uses them.</Notice> : null}
        <TextArea
          label="Groups (every term finds the others): one group per line, terms separated by commas"
          name="groups"
          rows={4}
          placeholder={"k8s, kubernetes\nauto-increment, serial, identity column"}
          value={groups}
          onChange={(e) => setGroups(e.target.value)}
          disabled={!loaded}
        />
        <TextArea
          label="One-way (the term finds the alternatives, not the reverse): one per line, term => alternatives"
          name="mappings"
          rows={3}
          placeholder="pg => postgresql, postgres"
          value={mappings}
          onChange={(e) => setMappings(e.target.value)}
          disabled={!loaded}
        />
        <button type="submit" className="button button--secondary" disabled={busy || !loaded}>
          {busy ? "Saving…" : "Save synonyms"}
        </button>
      </form>
    </section>
  );
}
