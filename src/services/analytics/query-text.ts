// A query as the search log keeps it: the form reports group by, popular queries are matched in,
// and suggestions are told apart by.
const MAX_QUERY = 256;

/** Lower case, trimmed, inner whitespace collapsed (Unicode compatibility forms folded). */
export function normaliseQuery(q: string): string {
  return q.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim().slice(0, MAX_QUERY);
}
