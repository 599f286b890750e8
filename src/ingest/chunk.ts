// Heading-aware chunking (design §6).
//
// Decisions:
// - A chunk holds content of one section only (the blocks under one heading path); every heading
//   starts a new chunk. So chunks never cross a top-level section, nor a lower one. Short
//   sections give short chunks, which retrieval handles well (context_window adds neighbours).
// - `headingPath` is the stack of headings above the chunk, outermost first. The document's first
//   heading is left out when its text equals the document title (usually the H1): the indexer
//   stores the title separately, and repeating it in every path only adds noise.
// - Chunk `text` is the content only, without title or headings: the indexer indexes title and
//   heading path as their own, weighted fields, and /retrieve shows heading_path beside the text.
// - Blocks are packed up to chunkSizeTokens; a block larger than a chunk is split at sentence
//   (and line) boundaries, a sentence larger than a chunk at word boundaries. Only a single
//   whitespace-free run longer than a whole chunk (a URL, base64, unspaced CJK) is cut inside.
// - Consecutive chunks of the same section overlap by up to chunkOverlapTokens: whole units
//   (blocks/sentences) from the end of the previous chunk, else its last sentences, else its last
//   words. Overlap never carries text across a heading.
// - Tokens are counted once per block or sentence and summed while packing; only the final text
//   of each chunk is counted again, so `tokenCount` is exact and work stays linear.
import { countTokens } from "./tokens.js";
import { splitSentences, splitWords, type Segment } from "./segment.js";
import type { ChunkDraft, ParsedBlock, ParsedDocument } from "./types.js";

export interface ChunkOptions {
  chunkSizeTokens: number;
  chunkOverlapTokens: number;
}

interface Unit {
  text: string;
  tokens: number;
  /** separator before this unit when the previous unit comes from the same block */
  sep: string;
  block: number;
  page?: number;
}

const BLOCK_SEP = "\n\n";
// Upper bound on characters per token in real text; longer blocks are surely over a chunk and
// go straight to sentence splitting instead of being counted whole first.
const MAX_CHARS_PER_TOKEN = 8;

function sepTokens(sep: string): number {
  return sep.includes("\n") ? 1 : 0;
}

function normalizeHeading(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

function joinUnits(units: Unit[]): string {
  let text = "";
  for (let i = 0; i < units.length; i++) {
    const u = units[i];
    if (i > 0) text += u.block === units[i - 1].block ? u.sep : BLOCK_SEP;
    text += u.text;
  }
  return text;
}

function separatorBefore(units: Unit[], next: Unit): string {
  if (units.length === 0) return "";
  return units[units.length - 1].block === next.block ? next.sep : BLOCK_SEP;
}

/**
 * Tokens of a segment as it will appear after its separator: BPE merges a leading space into the
 * next word (" Electroencephalography" and "Electroencephalography" can differ), so counting the
 * bare text would undercount joined chunks.
 */
function countInContext(seg: Segment): number {
  return seg.sep === " " ? countTokens(` ${seg.text}`) : countTokens(seg.text);
}

/** Cuts a whitespace-free run into pieces of at most maxTokens (the only place we cut inside a word). */
function hardSplit(word: string, maxTokens: number, sep: string): Segment[] {
  const chars = Array.from(word);
  const out: Segment[] = [];
  let start = 0;
  let take = Math.max(1, maxTokens * 3);
  while (start < chars.length) {
    let piece = chars.slice(start, start + take).join("");
    while (take > 1 && countTokens(piece) > maxTokens) {
      take = Math.max(1, Math.floor(take / 2));
      piece = chars.slice(start, start + take).join("");
    }
    out.push({ text: piece, sep: out.length === 0 ? sep : "" });
    start += take;
  }
  return out;
}

class Chunker {
  private readonly chunks: ChunkDraft[] = [];
  private readonly maxUnit: number;

  constructor(
    private readonly size: number,
    private readonly overlap: number,
  ) {
    this.maxUnit = Math.max(1, size - overlap);
  }

  result(): ChunkDraft[] {
    return this.chunks;
  }

  /** Units of one block, each at most maxUnit tokens. */
  unitsOf(block: ParsedBlock, index: number): Unit[] {
    const text = block.text.trim();
    if (!text) return [];
    const base = { block: index, page: block.page };
    if (text.length <= this.maxUnit * MAX_CHARS_PER_TOKEN) {
      const tokens = countTokens(text);
      if (tokens <= this.maxUnit) return [{ ...base, text, tokens, sep: "" }];
    }
    const units: Unit[] = [];
    // Counting tokens of a huge whitespace-free run is superlinear in the tokenizer (seconds for
    // 100 KB of one character); anything longer than a unit can hold is split without counting it.
    const tooLong = (t: string) => t.length > this.maxUnit * MAX_CHARS_PER_TOKEN;
    for (const sentence of splitSentences(text)) {
      const tokens = tooLong(sentence.text) ? Infinity : countInContext(sentence);
      if (tokens <= this.maxUnit) {
        units.push({ ...base, text: sentence.text, tokens, sep: sentence.sep });
        continue;
      }
      // Words of an overlong sentence, packed back into pieces that fit.
      let piece: Segment[] = [];
      let pieceTokens = 0;
      const flush = () => {
        if (piece.length === 0) return;
        const t = piece.map((w, i) => (i === 0 ? w.text : w.sep + w.text)).join("");
        units.push({ ...base, text: t, tokens: countInContext({ text: t, sep: piece[0].sep }), sep: piece[0].sep });
        piece = [];
        pieceTokens = 0;
      };
      splitWords(sentence.text).forEach((word, w) => {
        const sep = w === 0 ? sentence.sep : word.sep;
        const wt = tooLong(word.text) ? Infinity : countTokens(word.text);
        const segments = wt > this.maxUnit ? hardSplit(word.text, this.maxUnit, sep) : [{ text: word.text, sep }];
        for (const seg of segments) {
          const st = segments.length === 1 ? wt : countTokens(seg.text);
          if (piece.length > 0 && pieceTokens + st > this.maxUnit) flush();
          piece.push(seg);
          pieceTokens += st;
        }
      });
      flush();
    }
    return units;
  }

  /** Tail of the previous chunk to repeat at the start of the next one, within `budget` tokens. */
  overlapFrom(units: Unit[], budget: number): Unit[] {
    if (budget <= 0) return [];
    const taken: Unit[] = [];
    let used = 0;
    for (let i = units.length - 1; i >= 0; i--) {
      const u = units[i];
      const cost = u.tokens + (taken.length > 0 ? sepTokens(taken[0].block === u.block ? taken[0].sep : BLOCK_SEP) : 0);
      if (used + cost <= budget) {
        taken.unshift(u);
        used += cost;
        continue;
      }
      const room = budget - used - (taken.length > 0 ? 1 : 0);
      if (room > 0) taken.unshift(...this.tailOf(u, room, taken.length === 0));
      break;
    }
    return taken;
  }

  /** Last sentences of a unit within `room` tokens; last words if no sentence fits and `wordsOk`. */
  private tailOf(u: Unit, room: number, wordsOk: boolean): Unit[] {
    const pick = (segments: Segment[]): Unit[] => {
      const out: Unit[] = [];
      let used = 0;
      for (let i = segments.length - 1; i >= 0; i--) {
        const t = countTokens(segments[i].text);
        if (used + t > room) break;
        out.unshift({ text: segments[i].text, tokens: t, sep: segments[i].sep, block: u.block, page: u.page });
        used += t;
      }
      return out;
    };
    const sentences = splitSentences(u.text);
    const bySentence = sentences.length > 1 ? pick(sentences) : [];
    if (bySentence.length > 0 || !wordsOk) return bySentence;
    const words = pick(splitWords(u.text));
    if (words.length === 0) return [];
    const text = words.map((w, i) => (i === 0 ? w.text : w.sep + w.text)).join("");
    return [{ text, tokens: countTokens(text), sep: words[0].sep, block: u.block, page: u.page }];
  }

  /** Packs one section's units into chunks. */
  section(units: Unit[], headingPath: string[]): void {
    let current: Unit[] = [];
    let tokens = 0;
    let fresh = 0;
    let i = 0;
    while (i < units.length) {
      const u = units[i];
      const cost = u.tokens + sepTokens(separatorBefore(current, u));
      if (fresh > 0 && tokens + cost > this.size) {
        const leftover = this.emit(current, fresh, headingPath);
        const carried = leftover.length > 0 ? [] : this.overlapFrom(current, Math.min(this.overlap, this.size - u.tokens - 1));
        // Units that did not fit after exact counting go back in front of the queue.
        units.splice(i, 0, ...leftover);
        current = carried;
        fresh = 0;
        tokens = 0;
        for (let k = 0; k < carried.length; k++) {
          tokens += carried[k].tokens + (k > 0 ? sepTokens(carried[k - 1].block === carried[k].block ? carried[k].sep : BLOCK_SEP) : 0);
        }
        continue;
      }
      current.push(u);
      tokens += cost;
      fresh++;
      i++;
    }
    if (fresh > 0) {
      const leftover = this.emit(current, fresh, headingPath);
      if (leftover.length > 0) this.section(leftover, headingPath);
    }
  }

  /**
   * Emits a chunk of `units` whose last `fresh` are new. Sums of per-unit counts can differ from
   * the count of the joined text; if the exact count is over the limit, overlap units are dropped
   * and then trailing units are handed back for the next chunk.
   */
  private emit(units: Unit[], fresh: number, headingPath: string[]): Unit[] {
    let body = units;
    let text = joinUnits(body);
    let count = countTokens(text);
    const leftover: Unit[] = [];
    // Overlap goes first (oldest units first), so as much of it as fits is kept.
    while (count > this.size && body.length > fresh) {
      body = body.slice(1);
      text = joinUnits(body);
      count = countTokens(text);
    }
    while (count > this.size && body.length > 1) {
      leftover.unshift(body[body.length - 1]);
      body = body.slice(0, -1);
      text = joinUnits(body);
      count = countTokens(text);
    }
    const pages = [...new Set(body.map((u) => u.page).filter((p): p is number => p !== undefined))].sort((a, b) => a - b);
    this.chunks.push({
      position: this.chunks.length,
      text,
      headingPath: [...headingPath],
      tokenCount: count,
      metadata: pages.length > 0 ? { pages } : {},
    });
    return leftover;
  }
}

export function chunkDocument(doc: ParsedDocument, opts: ChunkOptions): ChunkDraft[] {
  const size = Math.floor(opts.chunkSizeTokens);
  if (!Number.isFinite(size) || size < 1) throw new RangeError("chunkSizeTokens must be a positive integer");
  // More overlap than half a chunk would make most of every chunk a repeat.
  const overlap = Math.max(0, Math.min(Math.floor(opts.chunkOverlapTokens) || 0, Math.floor(size / 2)));
  const chunker = new Chunker(size, overlap);
  const title = normalizeHeading(doc.title);

  const stack: { level: number; text: string }[] = [];
  let sectionUnits: Unit[] = [];
  let seenHeading = false;
  const headings: string[] = [];
  const flush = () => {
    if (sectionUnits.length > 0) chunker.section(sectionUnits, stack.map((h) => h.text));
    sectionUnits = [];
  };

  doc.blocks.forEach((block, index) => {
    if (block.type === "heading") {
      flush();
      const level = Math.min(Math.max(block.level ?? 1, 1), 6);
      while (stack.length > 0 && stack[stack.length - 1].level >= level) stack.pop();
      const text = block.text.replace(/\s+/g, " ").trim();
      const isTitle = !seenHeading && normalizeHeading(text) === title;
      seenHeading = true;
      if (text) headings.push(text);
      if (text && !isTitle) stack.push({ level, text });
      return;
    }
    sectionUnits.push(...chunker.unitsOf(block, index));
  });
  flush();

  const chunks = chunker.result();
  // A document of headings only still gets one chunk, so its words are searchable.
  if (chunks.length === 0 && headings.length > 0) {
    chunker.section(chunker.unitsOf({ type: "paragraph", text: headings.join("\n") }, 0), []);
  }
  return chunker.result();
}
