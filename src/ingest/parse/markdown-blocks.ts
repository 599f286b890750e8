// Parsed Markdown (an mdast tree) -> blocks. Headings become heading blocks, which is all the
// chunker needs for heading paths; paragraphs, lists, tables and code keep a plain or
// Markdown-ish text. Block quotes and footnotes are read through: their content counts as
// content of the section they stand in.
import type { Code, List, ListItem, Nodes, Root, RootContent, Table } from "mdast";
import type { ParsedBlock } from "../types.js";
import { cleanInline } from "./common.js";
import { stripInline } from "./inline.js";
import { flatText, htmlText, inlineText } from "./markdown-text.js";

// Deeper nesting is shown at this depth: past it, indentation no longer tells a reader anything.
const MAX_LIST_DEPTH = 8;
const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])/;
const FENCE = /^(`{3,}|~{3,})/;
// What a block quote or list puts before each line of a block nested in it.
const CONTAINER_PREFIX = /^(?:[ \t]*>)*[ \t]*/;

export function treeToBlocks(tree: Root, source: string): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  addChildren(tree.children, source, blocks);
  return blocks;
}

function addChildren(nodes: readonly RootContent[], source: string, out: ParsedBlock[]): void {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node.type !== "list") {
      addBlock(node, source, out);
      continue;
    }
    // A bullet list followed by a numbered one is two lists to CommonMark, one list to a reader.
    const lists = [node];
    for (let next = nodes[i + 1]; next?.type === "list"; next = nodes[i + 1]) {
      lists.push(next);
      i++;
    }
    push(out, "list", lists.flatMap((list) => listLines(list, 0, source)).join("\n"));
  }
}

function addBlock(node: RootContent, source: string, out: ParsedBlock[]): void {
  switch (node.type) {
    case "heading": {
      const text = cleanInline(inlineText(node.children));
      if (text) out.push({ type: "heading", level: node.depth, text });
      return;
    }
    case "paragraph":
      return push(out, "paragraph", cleanInline(inlineText(node.children)));
    case "html":
      return push(out, "paragraph", cleanInline(htmlText(node.value)));
    case "code":
      return push(out, "code", codeText(node, source));
    case "table":
      return push(out, "table", tableText(node, source));
    case "blockquote":
    case "footnoteDefinition":
      return addChildren(node.children, source, out);
    default:
      // thematic breaks and link definitions carry no text
      return;
  }
}

function push(out: ParsedBlock[], type: Exclude<ParsedBlock["type"], "heading">, text: string): void {
  if (text) out.push({ type, text });
}

/** One line per item, "  " per level of nesting, each marker as written ("-", "*", "1.", "2)"). */
function listLines(list: List, depth: number, source: string): string[] {
  return list.children.flatMap((item) => itemLines(item, depth, source));
}

function itemLines(item: ListItem, depth: number, source: string): string[] {
  const own = item.children.filter((child) => child.type !== "list");
  const nested = item.children.filter((child): child is List => child.type === "list");
  const box = item.checked === true ? "[x] " : item.checked === false ? "[ ] " : "";
  const text = cleanInline(own.map(flatText).join(" "));
  const line = text ? [`${"  ".repeat(depth)}${markerOf(item, source)} ${box}${text}`] : [];
  return [...line, ...nested.flatMap((list) => listLines(list, Math.min(depth + 1, MAX_LIST_DEPTH), source))];
}

function markerOf(item: ListItem, source: string): string {
  const start = item.position?.start.offset;
  if (start === undefined) return "-";
  return LIST_MARKER.exec(source.slice(start, start + 11))?.[0] ?? "-";
}

function sourceOf(node: Nodes, source: string): string {
  const { start, end } = node.position ?? {};
  return start?.offset === undefined || end?.offset === undefined ? "" : source.slice(start.offset, end.offset);
}

/**
 * Fenced code keeps its fences and info string, so the chunk still reads as code ("```ts ...");
 * indented code is just its lines. Code with nothing inside carries no text worth indexing.
 */
function codeText(node: Code, source: string): string {
  if (!node.value.trim()) return "";
  const lines = sourceOf(node, source).split("\n");
  const fence = FENCE.exec(lines[0] ?? "")?.[1];
  if (!fence) return node.value.trim();
  const last = lines.length > 1 ? lines[lines.length - 1].replace(CONTAINER_PREFIX, "").trimEnd() : "";
  const closed = last.length >= fence.length && last === fence[0].repeat(last.length);
  return [lines[0].trim(), node.value, ...(closed ? [last] : [])].join("\n").replace(/\s+$/, "");
}

/** Rows as written (alignment row included), with inline Markdown stripped from the cells. */
function tableText(node: Table, source: string): string {
  return sourceOf(node, source)
    .split("\n")
    .map((line) => stripInline(line.replace(CONTAINER_PREFIX, "").trim()).replace(/[ \t]+/g, " "))
    .filter((line) => line.length > 0)
    .join("\n");
}
