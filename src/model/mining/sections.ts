// The shape every text source is mined into: a document's sections (heading path and prose), and
// the training pairs drawn from them. A pair is a short text that asks or names (a heading, a
// question, a headword) and the passage that answers it, embedded as the service embeds a chunk:
// the document title and the parent headings on a line, then the prose. The asking text itself
// is left out of the passage's context line, so the pair is not matched by a copied heading.

export interface Section {
  /** headings above and including this section's own, outermost first */
  headings: string[];
  /** the section's prose, blocks separated by blank lines */
  text: string;
}

/** A described term: an API entry, a command-line option, a glossary or dictionary entry. */
export interface Definition {
  term: string;
  text: string;
  /** the headings of the section it stands in */
  headings: string[];
}

export interface MinedDocument {
  title: string;
  sections: Section[];
  definitions?: Definition[];
}

export type PairKind = "heading" | "question" | "gloss" | "synonym" | "summary";

export interface Pair {
  kind: PairKind;
  query: string;
  passage: string;
}

/** Passages longer than this many words are cut: the service's chunks hold ~300 words at most. */
export const MAX_PASSAGE_WORDS = 240;
export const MIN_PASSAGE_WORDS = 8;
export const MAX_QUERY_WORDS = 24;

export const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);

export function clip(text: string, max = MAX_PASSAGE_WORDS): string {
  const w = words(text);
  return w.length <= max ? text.trim() : w.slice(0, max).join(" ");
}

export function cleanText(s: string): string {
  return s
    .replace(/[\u00b6\u2020\u00a7]/g, " ") // pilcrows and daggers of permalink anchors
    .replace(/[ \t\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** A usable asking text: some letters, not too long, not a bare number or symbol. */
export function usableQuery(q: string): boolean {
  const n = words(q).length;
  return n >= 1 && n <= MAX_QUERY_WORDS && /[a-z]{3}/i.test(q);
}

/** The pair of a passage answering `query`, with `context` (title, parent headings) on its first line. */
export function makePair(kind: PairKind, query: string, context: string[], text: string): Pair | null {
  const q = cleanText(query);
  const body = clip(cleanText(text));
  if (!usableQuery(q) || words(body).length < MIN_PASSAGE_WORDS) return null;
  const line = context.map(cleanText).filter(Boolean).join(" › ");
  return { kind, query: q, passage: line ? `${line}\n${body}` : body };
}

/** Term -> description pairs, the title and headings as the passage's context. */
export function definitionPairs(doc: MinedDocument): Pair[] {
  const out: Pair[] = [];
  for (const d of doc.definitions ?? []) {
    const p = makePair("gloss", d.term, [doc.title, ...d.headings.filter((h) => h !== doc.title)], d.text);
    if (p) out.push(p);
  }
  return out;
}

/** Heading -> section pairs of a document; a title alone also asks for the first section. */
export function sectionPairs(doc: MinedDocument): Pair[] {
  const out: Pair[] = [];
  for (const s of doc.sections) {
    const own = s.headings.at(-1);
    // the page's first heading usually repeats its title
    const parents = s.headings.slice(0, -1).filter((h) => h !== doc.title);
    const context = doc.title && doc.title !== own ? [doc.title, ...parents] : parents;
    const p = own ? makePair("heading", own, context, s.text) : doc.title ? makePair("heading", doc.title, [], s.text) : null;
    if (p) out.push(p);
  }
  return out;
}
