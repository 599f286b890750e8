// Markdown -> blocks. Also the last step of the HTML and DOCX paths (they convert to Markdown
// first), so this is where heading structure is decided for three formats. The parser is
// mdast-util-from-markdown (micromark, CommonMark-compliant) with GFM for tables, task lists,
// strikethrough and footnotes: fences, setext headings, quotes and nesting are solved problems.
import type { Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { ParseError } from "./errors.js";
import { treeToBlocks } from "./markdown-blocks.js";
import { splitFrontMatter } from "./markdown-front-matter.js";
import { markdownPieces } from "./markdown-pieces.js";

const GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

// The block walker recurses once per level of nesting (quotes, lists, emphasis); real documents
// nest a few levels, and a tree thousands deep would exhaust the stack instead of failing clearly.
const MAX_TREE_DEPTH = 512;

export interface MarkdownBlocks {
  blocks: ParsedBlock[];
  /** `title:` from YAML front matter, when present */
  frontMatterTitle?: string;
}

export function markdownToBlocks(source: string): MarkdownBlocks {
  const { body, title } = splitFrontMatter(normalizeText(source));
  return { blocks: markdownPieces(body).flatMap(pieceToBlocks), frontMatterTitle: title };
}

function pieceToBlocks(piece: string): ParsedBlock[] {
  const tree = fromMarkdown(piece, GFM);
  checkTreeDepth(tree);
  return treeToBlocks(tree, piece);
}

/** Measured without recursion, so that any depth can be measured. */
function checkTreeDepth(tree: Root): void {
  let deepest = 0;
  const stack: Array<[Nodes, number]> = [[tree, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    deepest = Math.max(deepest, depth);
    if ("children" in node) for (const child of node.children) stack.push([child, depth + 1]);
  }
  if (deepest > MAX_TREE_DEPTH) {
    throw new ParseError(
      `The Markdown document nests quotes, lists or emphasis ${deepest} levels deep; the limit is ${MAX_TREE_DEPTH}. Simplify its structure (or save it as plain text) and upload again.`,
    );
  }
}

/** Title rule shared by Markdown-based formats: explicit title, else the first H1. */
export function firstH1(blocks: ParsedBlock[]): string | undefined {
  return blocks.find((b) => b.type === "heading" && b.level === 1)?.text;
}

export function parseMarkdown(bytes: Buffer, filename: string): ParsedDocument {
  const text = decodeUtf8Text(bytes);
  if (text === null) throw new ParseError("The Markdown file is not UTF-8 text. Save it with UTF-8 encoding and upload again.");
  const { blocks, frontMatterTitle } = markdownToBlocks(text);
  return finishDocument({
    kind: "markdown",
    title: frontMatterTitle ?? firstH1(blocks) ?? titleFromFilename(filename),
    blocks,
    metadata: {},
  });
}
