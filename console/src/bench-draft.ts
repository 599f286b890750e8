// The benchmark suite being put together in the search playground: queries with the results a
// person marked relevant. The API creates a suite with all its cases at once (POST /benchmarks),
// so the draft lives in this browser (localStorage, per workspace) until it is created.
import { useCallback, useEffect, useState } from "react";

export interface DraftCase {
  query: string;
  relevant: { id: string; title: string }[];
}

export interface Draft {
  collection_id: string;
  collection_name: string;
  cases: DraftCase[];
}

const CHANGED = "quarry:bench-draft";
const keyOf = (tenantId: string) => `quarry:bench-draft:${tenantId}`;

function read(tenantId: string): Draft | null {
  try {
    const raw = window.localStorage.getItem(keyOf(tenantId));
    return raw ? (JSON.parse(raw) as Draft) : null;
  } catch {
    return null;
  }
}

export function useDraft(tenantId: string) {
  const [draft, setDraft] = useState<Draft | null>(() => read(tenantId));
  useEffect(() => {
    const update = () => setDraft(read(tenantId));
    window.addEventListener(CHANGED, update);
    window.addEventListener("storage", update);
    return () => {
      window.removeEventListener(CHANGED, update);
      window.removeEventListener("storage", update);
    };
  }, [tenantId]);

  const save = useCallback(
    (d: Draft | null) => {
      try {
        if (d && d.cases.length) window.localStorage.setItem(keyOf(tenantId), JSON.stringify(d));
        else window.localStorage.removeItem(keyOf(tenantId));
      } catch {
        // storage full or disabled: the draft lives only in this page
      }
      setDraft(d && d.cases.length ? d : null);
      window.dispatchEvent(new Event(CHANGED));
    },
    [tenantId],
  );
  return { draft, save };
}

/** The draft with this query's case set (replaced when the query is already there). */
export function withCase(draft: Draft | null, collection: { id: string; name: string }, c: DraftCase): Draft {
  // a suite runs against one collection: a case for another collection starts a new draft
  const base = draft && draft.collection_id === collection.id ? draft : { collection_id: collection.id, collection_name: collection.name, cases: [] };
  const cases = base.cases.filter((x) => x.query.trim() !== c.query.trim());
  return { ...base, cases: [...cases, c] };
}

/** Forgets the draft of a workspace (it was deleted). */
export function clearDraft(tenantId: string): void {
  try {
    window.localStorage.removeItem(keyOf(tenantId));
  } catch {
    // nothing stored
  }
}
