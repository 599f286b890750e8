// Lists as one block of text: one line per item, "  " per level of nesting, each marker as
// written ("-", "*", "1.", "2)"). Task boxes ("[ ] ", "[x] ") stay in the item's text, as written.
import type { Token } from "markdown-it";
import { cleanInline } from "./common.js";
import { flatText } from "./markdown-text.js";

// Deeper nesting is shown at this depth: past it, indentation no longer tells a reader anything.
const MAX_LIST_DEPTH = 8;

/** An open container in the list's token range, and whether its lists become lines of their own. */
interface Frame {
  token: Token;
  ownLines: boolean;
}

interface Item {
  /** where the item's line goes, ahead of the lines of its nested lists */
  slot: number;
  prefix: string;
  words: string[];
}

/**
 * Lines of the list whose tokens run from `start` to `end` (its open and close tokens), walked
 * without recursion. A list directly inside an item gets lines of its own; a list inside a quote
 * or table in an item is folded into that item's words, like the rest of the quote.
 */
export function listLines(tokens: readonly Token[], start: number, end: number): string[] {
  const lines: string[] = [];
  const frames: Frame[] = [];
  const items: Item[] = [];
  let depth = -1;
  for (let i = start; i <= end; i++) {
    const token = tokens[i];
    if (token.nesting === 0) {
      const words = flatText(token);
      if (words) items[items.length - 1]?.words.push(words);
    } else if (token.nesting === 1) {
      const ownLines = hasOwnLines(token, frames[frames.length - 1]);
      frames.push({ token, ownLines });
      if (!ownLines) continue;
      if (isListOpen(token)) depth++;
      else items.push(openItem(token, depth, lines));
    } else {
      const frame = frames.pop();
      if (!frame?.ownLines) continue;
      if (isItem(frame.token)) closeItem(items.pop(), lines);
      else depth--;
    }
  }
  return lines.filter((line) => line !== "");
}

/** The list being read has lines, and so do its items and the lists directly inside them. */
function hasOwnLines(token: Token, parent: Frame | undefined): boolean {
  if (parent === undefined) return true;
  if (isListOpen(token)) return isItem(parent.token) && parent.ownLines;
  return isItem(token) && parent.ownLines;
}

export function isListOpen(token: Token | undefined): boolean {
  return token?.type === "bullet_list_open" || token?.type === "ordered_list_open";
}

function isItem(token: Token): boolean {
  return token.type === "list_item_open";
}

function openItem(token: Token, depth: number, lines: string[]): Item {
  // markdown-it keeps an ordered item's number as written in `info`, its "." or ")" in `markup`
  const marker = `${token.info}${token.markup}`;
  lines.push("");
  return { slot: lines.length - 1, prefix: `${"  ".repeat(Math.min(depth, MAX_LIST_DEPTH))}${marker} `, words: [] };
}

/** An item without words leaves no line; its nested items still have theirs. */
function closeItem(item: Item | undefined, lines: string[]): void {
  const text = item ? cleanInline(item.words.join(" ")) : "";
  if (item && text) lines[item.slot] = item.prefix + text;
}
