// From a query that found nothing to a synonym (issue 29 item 4): read the collection's synonyms,
// add the query's alternatives (a one-way mapping or a group), write the whole set back. The
// synonyms API replaces the set on PUT, so the read comes right before the write.
import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, type Collection } from "../api";
import { addSynonym, type SynonymSet } from "../synonym-text";
import { Alert, CollectionSelect, Field, useSubmit } from "../ui";
import { synonymsPath } from "./synonyms";

export function AddSynonymForm(props: { query: string; collections: Collection[]; collectionId: string; onDone: (message: string) => void; onCancel: () => void }) {
  const { query, collections, onDone, onCancel } = props;
  const [collectionId, setCollectionId] = useState(props.collectionId || collections[0]?.id || "");
  const [alternatives, setAlternatives] = useState("");
  const [twoWay, setTwoWay] = useState(false);
  const form = useSubmit();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [query]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const alts = alternatives.split(",").map((a) => a.trim()).filter(Boolean);
    if (alts.length === 0) {
      form.setFieldErrors({ alternatives: "Name at least one word or phrase the query should find." });
      return;
    }
    const done = await form.run(async () => {
      const current = await api<SynonymSet>("GET", synonymsPath(collectionId));
      await api<SynonymSet>("PUT", synonymsPath(collectionId), addSynonym(current, query, alts, twoWay));
      return true;
    });
    const name = collections.find((c) => c.id === collectionId)?.name ?? collectionId;
    if (done) onDone(`Searches for “${query}” in ${name} now also find ${alts.map((a) => `“${a}”`).join(", ")}${twoWay ? ", and the reverse" : ""}.`);
  }

  return (
    <form className="card synonym-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="synonym-heading">
      <h3 id="synonym-heading" ref={heading} tabIndex={-1}>
        Synonym for “{query}”
      </h3>
      <Alert error={form.error} />
      <CollectionSelect id="synonym-collection" label="Collection" collections={collections} value={collectionId} onChange={setCollectionId} />
      <Field
        label="Should also find"
        name="alternatives"
        hint="Words or phrases, separated by commas."
        value={alternatives}
        onChange={(e) => setAlternatives(e.target.value)}
        error={form.fieldErrors.alternatives}
      />
      <div className="check">
        <input id="synonym-two-way" type="checkbox" checked={twoWay} onChange={(e) => setTwoWay(e.target.checked)} />
        <label htmlFor="synonym-two-way">Both ways (the alternatives also find “{query}”)</label>
      </div>
      <div className="actions">
        <button type="submit" className="button" disabled={form.busy || !collectionId}>
          Save synonym
        </button>
        <button type="button" className="button button--ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
