// What a collection's adaptation trains on: its own text as heading -> section pairs. Each section
// (the chunks of a document under one heading path) becomes a pair whose query is its last heading
// (the document's title for the text before the first heading) and whose passage is the section's
// text. Nothing else is read: no benchmark case, no question set, no search log.
import type { ChunkSearch, DocumentCatalog } from "../../store/content-store.js";
import type { ChunkHit, ChunkRange } from "../../store/content-types.js";
import type { AdaptPair } from "../../model/query-adapt.js";
import { modelTokens } from "../../model/tokenizer.js";
import { inHashOrder } from "../tuning/fusion-search.js";

/**
 * At most this many pairs, chosen by the hash of their id: training is linear in them but the
 * held-out scoring ranks each scored query against every passage.
 */
export const MAX_PAIRS = 12_000;
/** documents listed per store call */
const PAGE = 200;
/** chunk positions read per store call (chunksInRanges refuses more than 10,000) */
const POSITIONS_PER_READ = 5_000;
/** a section's passage keeps its first characters only (the base model pools a bag; more adds little) */
const MAX_PASSAGE_CHARS = 4_000;
/** shorter sections say too little to learn from */
const MIN_PASSAGE_CHARS = 40;

export type PairStore = { content: Pick<DocumentCatalog, "listDocuments"> & Pick<ChunkSearch, "chunksInRanges"> };

interface Section {
  id: string;
  query: string;
  text: string[];
  chars: number;
}

/** Ranges covering every chunk of the documents, cut into reads of at most POSITIONS_PER_READ positions. */
function readsOf(docs: readonly { id: string; chunk_count: number }[]): ChunkRange[][] {
  const reads: ChunkRange[][] = [[]];
  let used = 0;
  for (const d of docs) {
    for (let from = 0; from < d.chunk_count; ) {
      if (used === POSITIONS_PER_READ) {
        reads.push([]);
        used = 0;
      }
      const n = Math.min(d.chunk_count - from, POSITIONS_PER_READ - used);
      reads[reads.length - 1]!.push({ documentId: d.id, fromPosition: from, toPosition: from + n - 1 });
      used += n;
      from += n;
    }
  }
  return reads.filter((r) => r.length > 0);
}

/** The collection's documents' chunks, a read at a time. */
async function* chunksOf(store: PairStore, tenantId: string, collectionId: string): AsyncGenerator<ChunkHit[]> {
  let before: { created_at: string; id: string } | undefined;
  for (;;) {
    const docs = await store.content.listDocuments(tenantId, { collectionId, status: "indexed", limit: PAGE, ...(before ? { before } : {}) });
    if (docs.length === 0) return;
    for (const ranges of readsOf(docs)) yield await store.content.chunksInRanges(tenantId, ranges);
    if (docs.length < PAGE) return;
    const last = docs[docs.length - 1]!;
    before = { created_at: last.created_at, id: last.id };
  }
}

const normalised = (q: string) => modelTokens(q).join(" ");

/** A crawled page's path without its origin (the same site served elsewhere names its sections the same); a file name as it is. */
function pathOf(source: string): string {
  return /^https?:\/\//.test(source) ? source.replace(/^https?:\/\/[^/]*/, "") : source;
}

/** The collection's sections, read once, keyed by document and heading path; `onChunk` sees every chunk on the way. */
async function sectionsOf(store: PairStore, tenantId: string, collectionId: string, onChunk?: (c: ChunkHit) => void): Promise<Section[]> {
  const sections = new Map<string, Section>();
  for await (const chunks of chunksOf(store, tenantId, collectionId)) {
    for (const c of chunks) {
      onChunk?.(c);
      const key = `${c.document_id}/${c.heading_path.join("/")}`;
      let s = sections.get(key);
      if (!s) {
        // named by the document's source, not its id: the same content loaded again splits and trains the same way
        // (two documents of one source name under one heading share a query, and are dropped as ambiguous below)
        const id = `${pathOf(c.source)}#${c.heading_path.join("/")}`;
        const query = c.heading_path.length ? c.heading_path[c.heading_path.length - 1]! : c.title;
        s = { id, query, text: [], chars: 0 };
        sections.set(key, s);
      }
      if (s.chars < MAX_PASSAGE_CHARS) {
        s.text.push(c.text);
        s.chars += c.text.length;
      }
    }
  }
  return [...sections.values()];
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The heading -> section pairs of these sections. A heading that names more than one section
 * (every page's "Parameters") is left out: it has no single answer, and in a batch its other
 * sections would be wrong answers that are right.
 */
function pairsOf(sections: readonly Section[]): AdaptPair[] {
  const uses = new Map<string, number>();
  for (const s of sections) {
    const q = normalised(s.query);
    uses.set(q, (uses.get(q) ?? 0) + 1);
  }
  const pairs: AdaptPair[] = [];
  for (const s of sections) {
    const q = normalised(s.query);
    if (!q || uses.get(q) !== 1 || s.chars < MIN_PASSAGE_CHARS) continue;
    pairs.push({ id: s.id, query: s.query, passage: s.text.join("\n").slice(0, MAX_PASSAGE_CHARS) });
  }
  // in id order, whatever order the store listed the documents in (training shuffles from it)
  const kept = pairs.length > MAX_PAIRS ? inHashOrder(pairs).slice(0, MAX_PAIRS) : pairs;
  return kept.sort(byId);
}

/** The collection's heading -> section pairs (pairsOf). */
export async function collectionPairs(store: PairStore, tenantId: string, collectionId: string): Promise<AdaptPair[]> {
  return pairsOf(await sectionsOf(store, tenantId, collectionId));
}

/**
 * The pairs, and the text of every chunk long enough to learn from (at most MAX_PAIRS chosen by
 * hash, in id order): the whole-model adaptation makes inverse-cloze pairs of them (a chunk, as
 * the lab measured it: a section's first 4,000 characters would leave long sections' later text out).
 */
export async function collectionText(store: PairStore, tenantId: string, collectionId: string): Promise<{ pairs: AdaptPair[]; passages: { id: string; text: string }[] }> {
  const chunks: { id: string; text: string }[] = [];
  const sections = await sectionsOf(store, tenantId, collectionId, (c) => {
    if (c.text.length >= MIN_PASSAGE_CHARS) chunks.push({ id: `${pathOf(c.source)}#${c.position}`, text: c.text });
  });
  const kept = chunks.length > MAX_PAIRS ? inHashOrder(chunks).slice(0, MAX_PAIRS) : chunks;
  return { pairs: pairsOf(sections), passages: kept.sort(byId) };
}
