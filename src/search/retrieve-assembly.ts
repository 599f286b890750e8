// POST /retrieve body assembly: from ranked matched chunks to contexts, documents, citations,
// token estimate and the ready-to-paste text block (DESIGN.md §6). Pure: the caller fetches
// neighbour chunks (use neighbourRanges() to know which, e.g. for an async store) and passes them.
//
// Decisions:
// - Selection: matches sorted by score (stable), duplicate ids dropped, at most
//   maxChunksPerDocument per document, then the first topK.
// - Neighbours: positions p-w..p+w (never < 0; the upper bound is whatever the store returns) of
//   each selected match, skipping chunks already present. A neighbour is `expanded: true` and
//   carries the score of the best match it expands (matches are expanded best first).
// - Order: contexts of one document that form a consecutive run of positions (overlapping or
//   touching windows) are one block, kept in document order so the LLM reads continuous text.
//   Blocks are ordered by their best match's score, best first.
// - Budget (maxTokens): contexts are dropped lowest score first; at equal score expanded
//   neighbours go before the match they expand, the farthest first, the following one before the
//   preceding one. The budget is never exceeded. If the single best match alone is over budget,
//   its text is cut at a word boundary (ending in "…") to fit, rather than returning nothing: a
//   partial best passage is more useful to an LLM than an empty context.
// - Citations: 1..n, one number per document, in order of first appearance in the final contexts.
// - token_estimate: json = sum of countTokens(context.text); text = countTokens(text block).
// - Text block layout (format 'text'), one section per run of consecutive chunks of a document:
//
//     [1] Title — source
//     Section: Heading › Subheading      (only when the chunk has a heading path; repeated when
//                                         it changes inside the section)
//     chunk text
//
//     next consecutive chunk's text (the chunker's overlap with the previous chunk removed)
//
//     [2] Other title — other source
//     ...
//
//   Sections, and chunks inside a section, are separated by one blank line; a new section always
//   starts with a `[n]` line, so a document met again later (or split by a trimmed neighbour)
//   repeats its header with the same number. The header omits " — source" when source is empty
//   (and shows the document id when both are empty). Overlap removal applies to the text block
//   only; contexts keep chunks as stored.

import { countTokens } from "../ingest/tokens.js";
import { limitPerDocument } from "./collapse.js";

export interface ChunkRecord {
  id: string;
  documentId: string;
  /** 0-based position of the chunk within its document */
  position: number;
  text: string;
  headingPath: readonly string[];
  title: string;
  source: string;
}

export interface ScoredChunk extends ChunkRecord {
  /** fused score, higher is better */
  score: number;
}

/**
 * Where neighbour chunks come from: a map documentId -> that document's chunks (any subset, any
 * order), or a function returning a document's chunks with from <= position <= to (missing
 * positions are simply absent: past the document's end, or not indexed).
 */
export type NeighbourSource =
  | ReadonlyMap<string, readonly ChunkRecord[]>
  | ((documentId: string, fromPosition: number, toPosition: number) => readonly ChunkRecord[]);

export type RetrieveFormat = "json" | "text";

export interface RetrieveOptions {
  /** maximum matched chunks (1..50; API default 8) */
  topK: number;
  /** 1..20; API default 3 */
  maxChunksPerDocument: number;
  /** neighbours before and after each match, 0..2; API default 0 */
  contextWindow: number;
  /** token budget for the contexts (or the text block), null = unlimited */
  maxTokens: number | null;
  format: RetrieveFormat;
}

export interface RetrievedContext {
  id: string;
  document_id: string;
  title: string;
  source: string;
  position: number;
  heading_path: string[];
  text: string;
  score: number;
  expanded: boolean;
  citation: number;
}

export interface RetrievedDocument {
  document_id: string;
  title: string;
  source: string;
  best_score: number;
  chunks: number;
}

/** RetrieveResponse without `query` and `took_ms`, which the service adds. */
export interface RetrieveAssembly {
  contexts: RetrievedContext[];
  documents: RetrievedDocument[];
  token_estimate: number;
  /** the text block when format is 'text', else null */
  text: string | null;
}

export interface NeighbourRange {
  documentId: string;
  fromPosition: number;
  toPosition: number;
}

interface Item {
  chunk: ChunkRecord;
  text: string;
  score: number;
  expanded: boolean;
  /** distance from the match this item expands (0 for matches) */
  distance: number;
  /** neighbour after its match (dropped before the one before) */
  after: boolean;
  /** index of the match in selection order (lower = better); the final tie-breaker */
  matchRank: number;
}

function stableByScore<T extends { score: number }>(items: readonly T[]): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => b.item.score - a.item.score || a.index - b.index)
    .map((x) => x.item);
}

/** The matches that become contexts: by score, distinct ids, per-document cap, then top k. */
export function selectMatches<T extends { id: string; documentId: string; score: number }>(
  matches: readonly T[],
  options: Pick<RetrieveOptions, "topK" | "maxChunksPerDocument">,
): T[] {
  const seen = new Set<string>();
  const distinct = stableByScore(matches).filter((m) => (seen.has(m.id) ? false : (seen.add(m.id), true)));
  return limitPerDocument(distinct, options.maxChunksPerDocument).slice(0, Math.max(0, options.topK));
}

/** The position ranges to fetch for context_window w (one per selected match, clamped at 0). */
export function neighbourRanges(selected: readonly ScoredChunk[], contextWindow: number): NeighbourRange[] {
  const w = Math.max(0, Math.floor(contextWindow));
  if (w === 0) return [];
  return selected.map((m) => ({
    documentId: m.documentId,
    fromPosition: Math.max(0, m.position - w),
    toPosition: m.position + w,
  }));
}

function neighboursOf(source: NeighbourSource, range: NeighbourRange): Map<number, ChunkRecord> {
  const list =
    typeof source === "function"
      ? source(range.documentId, range.fromPosition, range.toPosition)
      : (source.get(range.documentId) ?? []);
  const out = new Map<number, ChunkRecord>();
  for (const c of list) {
    if (c.documentId !== range.documentId) continue;
    if (c.position < range.fromPosition || c.position > range.toPosition) continue;
    if (!out.has(c.position)) out.set(c.position, c);
  }
  return out;
}

/** Selected matches plus neighbours, ordered in blocks (see the header comment). */
function buildItems(selected: readonly ScoredChunk[], neighbours: NeighbourSource, contextWindow: number): Item[] {
  const byDoc = new Map<string, Map<number, Item>>();
  const docOrder: string[] = [];
  const docItems = (documentId: string): Map<number, Item> => {
    let m = byDoc.get(documentId);
    if (!m) {
      m = new Map();
      byDoc.set(documentId, m);
      docOrder.push(documentId);
    }
    return m;
  };
  // Matches first, so a neighbour never displaces a match at the same position.
  selected.forEach((m, matchRank) => {
    const items = docItems(m.documentId);
    if (!items.has(m.position)) {
      items.set(m.position, { chunk: m, text: m.text, score: m.score, expanded: false, distance: 0, after: false, matchRank });
    }
  });
  const ranges = neighbourRanges(selected, contextWindow);
  ranges.forEach((range, matchRank) => {
    const match = selected[matchRank];
    if (!match) return;
    const found = neighboursOf(neighbours, range);
    const items = docItems(match.documentId);
    for (let p = range.fromPosition; p <= range.toPosition; p++) {
      const chunk = found.get(p);
      if (!chunk || items.has(p)) continue;
      items.set(p, {
        chunk,
        text: chunk.text,
        score: match.score,
        expanded: true,
        distance: Math.abs(p - match.position),
        after: p > match.position,
        matchRank,
      });
    }
  });

  const blocks: { items: Item[]; score: number; rank: number }[] = [];
  for (const documentId of docOrder) {
    const items = [...(byDoc.get(documentId)?.values() ?? [])].sort((a, b) => a.chunk.position - b.chunk.position);
    let current: Item[] = [];
    const close = (): void => {
      if (current.length === 0) return;
      const matches = current.filter((i) => !i.expanded);
      const best = matches.length > 0 ? matches : current;
      blocks.push({
        items: current,
        score: Math.max(...best.map((i) => i.score)),
        rank: Math.min(...best.map((i) => i.matchRank)),
      });
      current = [];
    };
    for (const item of items) {
      const prev = current[current.length - 1];
      if (prev && item.chunk.position !== prev.chunk.position + 1) close();
      current.push(item);
    }
    close();
  }
  blocks.sort((a, b) => b.score - a.score || a.rank - b.rank);
  return blocks.flatMap((b) => b.items);
}

/** Drop order: lowest score first; then neighbours before matches, farther, following, worse match. */
function dropOrder(items: readonly Item[]): Item[] {
  return [...items].sort(
    (a, b) =>
      a.score - b.score ||
      Number(b.expanded) - Number(a.expanded) ||
      b.distance - a.distance ||
      Number(b.after) - Number(a.after) ||
      b.matchRank - a.matchRank,
  );
}

function headerLine(citation: number, title: string, source: string, documentId: string): string {
  const parts = [title, source].filter((s) => s.trim() !== "");
  return `[${citation}] ${parts.length > 0 ? parts.join(" — ") : documentId}`;
}

/**
 * The chunker repeats the end of a chunk at the start of the next (chunk_overlap_tokens). In the
 * text block that would read as a stutter, so the longest exact suffix/prefix overlap (at least
 * MIN_OVERLAP characters) is removed from the following chunk.
 */
const MIN_OVERLAP = 16;
const MAX_OVERLAP_SCAN = 8000;
export function removeOverlap(previous: string, next: string): string {
  const prev = previous.trimEnd();
  const nxt = next.trimStart();
  if (prev.length < MIN_OVERLAP || nxt.length < MIN_OVERLAP) return next;
  const probe = nxt.slice(0, MIN_OVERLAP);
  const from = Math.max(0, prev.length - MAX_OVERLAP_SCAN);
  for (let i = prev.indexOf(probe, from); i !== -1; i = prev.indexOf(probe, i + 1)) {
    const tail = prev.slice(i);
    if (nxt.startsWith(tail)) return nxt.slice(tail.length).trimStart();
  }
  return next;
}

/** Build the text block for contexts in final order (citations already assigned). */
function renderText(items: readonly Item[], citationOf: (documentId: string) => number): string {
  const sections: string[] = [];
  let lines: string[] = [];
  let prev: Item | undefined;
  let lastHeading = "";
  for (const item of items) {
    const c = item.chunk;
    const continues = prev !== undefined && prev.chunk.documentId === c.documentId && prev.chunk.position + 1 === c.position;
    if (!continues) {
      if (lines.length > 0) sections.push(lines.join("\n"));
      lines = [headerLine(citationOf(c.documentId), c.title, c.source, c.documentId)];
      lastHeading = "";
    }
    if (continues) lines.push("");
    const heading = c.headingPath.join(" › ");
    if (heading !== "" && heading !== lastHeading) lines.push(`Section: ${heading}`);
    lastHeading = heading;
    const text = continues && prev ? removeOverlap(prev.text, item.text) : item.text;
    lines.push(text.trim());
    prev = item;
  }
  if (lines.length > 0) sections.push(lines.join("\n"));
  return sections.join("\n\n");
}

function citations(items: readonly Item[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) if (!out.has(item.chunk.documentId)) out.set(item.chunk.documentId, out.size + 1);
  return out;
}

/** Exact cost of a set of items in final order, as token_estimate will report it. */
function exactCost(items: readonly Item[], format: RetrieveFormat, count: (text: string) => number): number {
  if (format === "json") return items.reduce((sum, i) => sum + count(i.text), 0);
  const cites = citations(items);
  return count(renderText(items, (d) => cites.get(d) ?? 0));
}

/**
 * Longest word-boundary prefix of `text` (plus "…") that fits; if no word boundary does (one huge
 * "word"), the longest character prefix that fits. null when not even one character fits.
 */
function truncateToFit(text: string, fits: (candidate: string) => boolean): string | null {
  const cuts: number[] = [];
  for (const m of text.matchAll(/\s+/g)) if ((m.index ?? 0) > 0) cuts.push(m.index ?? 0);
  let lo = 0;
  let hi = cuts.length - 1;
  let best: string | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = text.slice(0, cuts[mid]).trimEnd() + "…";
    if (fits(candidate)) {
      best = candidate;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (best !== null) return best;
  // No word boundary fits (one enormous "word": base64, minified code): cut between characters.
  let lo2 = 1;
  let hi2 = text.length - 1;
  while (lo2 <= hi2) {
    const mid = (lo2 + hi2) >> 1;
    const code = text.charCodeAt(mid);
    const at = code >= 0xdc00 && code <= 0xdfff ? mid - 1 : mid; // keep surrogate pairs whole
    const candidate = text.slice(0, at) + "…";
    if (at > 0 && fits(candidate)) {
      best = candidate;
      lo2 = mid + 1;
    } else {
      hi2 = mid - 1;
    }
  }
  return best;
}

function trimToBudget(
  ordered: readonly Item[],
  budget: number,
  format: RetrieveFormat,
  count: (text: string) => number,
): Item[] {
  const fits = (items: readonly Item[]): boolean => exactCost(items, format, count) <= budget;
  if (fits(ordered)) return [...ordered];

  // Drop a prefix of the drop order. The cost shrinks as the prefix grows, so binary-search the
  // shortest prefix that fits (a handful of exact counts instead of one per context). Every
  // candidate is checked exactly, so the result never exceeds the budget even where dropping a
  // middle chunk adds a section header.
  const drops = dropOrder(ordered);
  const keptAfter = (n: number): Item[] => {
    const removed = new Set(drops.slice(0, n));
    return ordered.filter((i) => !removed.has(i));
  };
  let lo = 1;
  let hi = ordered.length - 1;
  let best: Item[] | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const kept = keptAfter(mid);
    if (fits(kept)) {
      best = kept;
      hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  if (best) return best;

  // Only the best match is left and it alone is over budget: cut its text to fit.
  const only = drops[drops.length - 1];
  if (!only) return [];
  const cut = truncateToFit(only.text, (candidate) => fits([{ ...only, text: candidate }]));
  return cut === null ? [] : [{ ...only, text: cut }];
}

export function assembleRetrieve(
  matches: readonly ScoredChunk[],
  neighbours: NeighbourSource,
  options: RetrieveOptions,
): RetrieveAssembly {
  const cache = new Map<string, number>();
  const count = (text: string): number => {
    let n = cache.get(text);
    if (n === undefined) {
      n = countTokens(text);
      cache.set(text, n);
    }
    return n;
  };

  const selected = selectMatches(matches, options);
  let items = buildItems(selected, neighbours, options.contextWindow);
  if (options.maxTokens !== null && items.length > 0) {
    items = trimToBudget(items, Math.max(0, options.maxTokens), options.format, count);
  }

  const cites = citations(items);
  const citationOf = (documentId: string): number => cites.get(documentId) ?? 0;
  const contexts: RetrievedContext[] = items.map((i) => ({
    id: i.chunk.id,
    document_id: i.chunk.documentId,
    title: i.chunk.title,
    source: i.chunk.source,
    position: i.chunk.position,
    heading_path: [...i.chunk.headingPath],
    text: i.text,
    score: i.score,
    expanded: i.expanded,
    citation: citationOf(i.chunk.documentId),
  }));

  const documents = new Map<string, RetrievedDocument>();
  for (const c of contexts) {
    const d = documents.get(c.document_id);
    if (d) {
      d.best_score = Math.max(d.best_score, c.score);
      d.chunks++;
    } else {
      documents.set(c.document_id, { document_id: c.document_id, title: c.title, source: c.source, best_score: c.score, chunks: 1 });
    }
  }

  const text = options.format === "text" ? renderText(items, citationOf) : null;
  const token_estimate = text !== null ? count(text) : contexts.reduce((sum, c) => sum + count(c.text), 0);
  return { contexts, documents: [...documents.values()], token_estimate, text };
}
