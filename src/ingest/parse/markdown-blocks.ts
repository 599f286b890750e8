// Parsed Markdown (markdown-it's flat token stream) -> blocks. Headings become heading blocks,
// which is all the chunker needs for heading paths; paragraphs, lists, tables and code keep a
// plain or Markdown-ish text. Block quotes and footnotes are read through: their content counts
// as content of the section they stand in. The stream is walked in order, without recursion.
import type { Token } from "markdown-it";
import type { ParsedBlock } from "../types.js";
import { cleanInline } from "./common.js";
import { stripInline } from "./inline.js";
import { isListOpen, listLines } from "./markdown-lists.js";
import { htmlText, inlineText } from "./markdown-text.js";

// What a block quote or list puts before each line of a block nested in it.
const CONTAINER_PREFIX = /^(?:[ \t]*>)*[ \t]*/;

interface Walk {
  tokens: readonly Token[];
  /** lines of the parsed text, split on first use (only tables and fences need them) */
  lines: () => string[];
  out: ParsedBlock[];
}

export function tokensToBlocks(tokens: readonly Token[], source: string): ParsedBlock[] {
  let lines: string[] | undefined;
  const walk: Walk = { tokens, lines: () => (lines ??= source.split("\n")), out: [] };
  for (let i = 0; i < tokens.length; ) i = addBlock(walk, i);
  return walk.out;
}

/** Adds the block starting at token `i`; returns the index of the token after it. */
function addBlock(walk: Walk, i: number): number {
  const { tokens, out } = walk;
  const token = tokens[i];
  switch (token.type) {
    case "heading_open": {
      const text = cleanInline(inlineText(tokens[i + 1].children));
      if (text) out.push({ type: "heading", level: Number(token.tag.slice(1)), text });
      return i + 3;
    }
    case "paragraph_open":
      push(out, "paragraph", cleanInline(inlineText(tokens[i + 1].children)));
      return i + 3;
    case "html_block":
      push(out, "paragraph", cleanInline(htmlText(token.content)));
      return i + 1;
    case "fence":
      push(out, "code", fenceText(token, walk.lines));
      return i + 1;
    case "code_block":
      push(out, "code", token.content.trim());
      return i + 1;
    case "table_open":
      push(out, "table", tableText(token, walk.lines));
      return closeOf(tokens, i) + 1;
    case "bullet_list_open":
    case "ordered_list_open":
      return addLists(walk, i);
    default:
      // quotes and footnote definitions are read through; thematic breaks carry no text (and
      // link reference definitions leave no token at all)
      return i + 1;
  }
}

function push(out: ParsedBlock[], type: Exclude<ParsedBlock["type"], "heading">, text: string): void {
  if (text) out.push({ type, text });
}

/** The token that closes the one opened at `open`: the next one back at its level. */
function closeOf(tokens: readonly Token[], open: number): number {
  const level = tokens[open].level;
  let i = open + 1;
  while (i < tokens.length - 1 && !(tokens[i].nesting === -1 && tokens[i].level === level)) i++;
  return i;
}

/** A bullet list followed by a numbered one is two lists to CommonMark, one list to a reader. */
function addLists(walk: Walk, start: number): number {
  const lines: string[] = [];
  let next = start;
  do {
    const end = closeOf(walk.tokens, next);
    lines.push(...listLines(walk.tokens, next, end));
    next = end + 1;
  } while (isListOpen(walk.tokens[next]));
  push(walk.out, "list", lines.join("\n"));
  return next;
}

/**
 * Fenced code keeps its fences and info string, so the chunk still reads as code ("```ts ...");
 * the closing fence is kept as written, when there is one. Code with nothing inside carries no
 * text worth indexing.
 */
function fenceText(token: Token, lines: () => string[]): string {
  const body = token.content.replace(/\n$/, "");
  if (!body.trim()) return "";
  const [first, end] = token.map ?? [0, 0];
  const last = end - first > 1 ? (lines()[end - 1] ?? "").replace(CONTAINER_PREFIX, "").trimEnd() : "";
  const closed = last.length >= token.markup.length && last === token.markup[0].repeat(last.length);
  return [`${token.markup}${token.info}`.trim(), body, ...(closed ? [last] : [])].join("\n").replace(/\s+$/, "");
}

/** Rows as written (alignment row included), with inline Markdown stripped from the cells. */
function tableText(token: Token, lines: () => string[]): string {
  const [first, end] = token.map ?? [0, 0];
  return lines()
    .slice(first, end)
    .map((line) => stripInline(line.replace(CONTAINER_PREFIX, "").trim()).replace(/[ \t]+/g, " "))
    .filter((line) => line.length > 0)
    .join("\n");
}
