// The scale corpus: real texts (text-sources.ts) deduplicated, shuffled with the run's seed and
// cut into chunks at paragraph boundaries; past the end of the real text, documents composed of
// real sentences sampled from it (there are not a million chunks of distinct text on a machine).
// Every document of the stream is a pure function of (texts, seed, ordinal).
import { createHash } from "node:crypto";
import { prng, seedFor, shuffle } from "./rng.js";
import type { Origin, SourceText } from "./text-sources.js";

/** about 400 cl100k tokens, the default profile's chunk size, for English prose */
export const MAX_CHUNK_WORDS = 300;
const MIN_CHUNK_WORDS = 5;

export interface CorpusDocument {
  origin: Origin | "composed";
  source: string;
  title: string;
  chunks: string[];
}

export interface Corpus {
  /** real documents in stream order */
  real: CorpusDocument[];
  realChunks: number;
  /** cumulative chunk counts of `real` (for sampling a chunk uniformly) */
  cumulative: Uint32Array;
  seed: number;
  stats: Record<string, { documents: number; chunks: number; words: number }>;
  duplicatesDropped: number;
}

/** Paragraphs (blank-line separated) packed into chunks of at most maxWords words. */
export function chunkText(text: string, maxWords = MAX_CHUNK_WORDS): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length >= MIN_CHUNK_WORDS) chunks.push(current.join(" "));
    current = [];
  };
  for (const para of text.split(/\n[ \t]*\n/)) {
    const words = para.split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    if (current.length + words.length > maxWords) flush();
    for (let i = 0; i < words.length; i += maxWords) {
      const piece = words.slice(i, i + maxWords);
      if (current.length + piece.length > maxWords) flush();
      current.push(...piece);
    }
  }
  flush();
  return chunks;
}

export function buildCorpus(texts: SourceText[], seed: number): Corpus {
  const seen = new Set<string>();
  const docs: CorpusDocument[] = [];
  let duplicatesDropped = 0;
  for (const t of texts) {
    // copyright files and changelogs are installed once per binary package: keep one copy
    const digest = createHash("sha1").update(t.text).digest("base64");
    if (seen.has(digest)) {
      duplicatesDropped++;
      continue;
    }
    seen.add(digest);
    const chunks = chunkText(t.text);
    if (chunks.length) docs.push({ origin: t.origin, source: t.source, title: t.title, chunks });
  }
  shuffle(docs, prng(seedFor(seed, "shuffle", 0)));
  const cumulative = new Uint32Array(docs.length + 1);
  const stats: Corpus["stats"] = {};
  docs.forEach((d, i) => {
    cumulative[i + 1] = cumulative[i] + d.chunks.length;
    const s = (stats[d.origin] ??= { documents: 0, chunks: 0, words: 0 });
    s.documents++;
    s.chunks += d.chunks.length;
    for (const c of d.chunks) s.words += c.split(" ").length;
  });
  return { real: docs, realChunks: cumulative[docs.length], cumulative, seed, stats, duplicatesDropped };
}

/** the real chunk with this index (0 <= i < realChunks) */
export function realChunk(c: Corpus, i: number): string {
  let lo = 0;
  let hi = c.real.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (c.cumulative[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return c.real[lo].chunks[i - c.cumulative[lo]];
}

/** A composed chunk: runs of 1-3 consecutive sentences of random real chunks, to a real chunk's length. */
function composeChunk(c: Corpus, rnd: () => number): string {
  const target = realChunk(c, Math.floor(rnd() * c.realChunks)).split(" ").length;
  const words: string[] = [];
  while (words.length < target) {
    const sentences = realChunk(c, Math.floor(rnd() * c.realChunks)).split(/(?<=[.!?])\s+/);
    const start = Math.floor(rnd() * sentences.length);
    const run = sentences.slice(start, start + 1 + Math.floor(rnd() * 3)).join(" ");
    words.push(...run.split(" "));
  }
  return words.slice(0, Math.max(target, MIN_CHUNK_WORDS)).join(" ");
}

/** Composed document number j: a real title and chunk count, real sentences in new combinations. */
export function composedDocument(c: Corpus, j: number): CorpusDocument {
  const rnd = prng(seedFor(c.seed, "compose", j));
  const model = c.real[Math.floor(rnd() * c.real.length)];
  const n = Math.min(model.chunks.length, 20);
  const chunks = Array.from({ length: n }, () => composeChunk(c, rnd));
  return { origin: "composed", source: `composed:${j}`, title: model.title, chunks };
}

/** Document number i of the stream: real ones first, composed ones after. */
export function documentAt(c: Corpus, i: number): CorpusDocument {
  return i < c.real.length ? c.real[i] : composedDocument(c, i - c.real.length);
}
