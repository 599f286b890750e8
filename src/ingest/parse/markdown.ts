// Markdown -> blocks. Also the last step of the HTML and DOCX paths (they convert to Markdown
// first), so this is where heading structure is decided for three formats. The parser is
// markdown-it (CommonMark-compliant, linear in the length of the document, tables and
// strikethrough built in) with its footnote plugin: fences, setext headings, quotes and nesting
// are solved problems, and it stays linear where a syntax-tree parser grew faster than the
// document (docs/decisions.md, "Markdown reader").
import MarkdownIt, { type Token } from "markdown-it";
import footnote from "markdown-it-footnote";
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { ParseError } from "./errors.js";
import { tokensToBlocks } from "./markdown-blocks.js";
import { splitFrontMatter } from "./markdown-front-matter.js";

// Real documents nest quotes and lists a few levels; a document nested hundreds deep is refused
// clearly rather than read in part.
const MAX_DEPTH = 512;
// markdown-it recurses once per level of quotes and lists and silently stops reading past its
// own limit, so that limit is set above ours: a document too deep is always measured as such.
const PARSER_NESTING = 2 * MAX_DEPTH;

const parser = createParser();

function createParser() {
  const md = new MarkdownIt({ html: true, maxNesting: PARSER_NESTING }).use(footnote);
  // Footnote definitions stay where they are written, in their section; the plugin would move
  // them to the end of the document, under its last heading.
  md.core.ruler.disable("footnote_tail");
  // "^[an inline note]" is not GFM: it stays the words it is.
  md.inline.ruler.disable("footnote_inline");
  // Nothing is rendered, so every link is safe to read as text and its target is never used.
  md.validateLink = () => true;
  md.normalizeLink = (url) => url;
  md.normalizeLinkText = (url) => url;
  return md;
}

export interface MarkdownBlocks {
  blocks: ParsedBlock[];
  /** `title:` from YAML front matter, when present */
  frontMatterTitle?: string;
}

export function markdownToBlocks(source: string): MarkdownBlocks {
  // A byte order mark would keep a first "# Title" from being read as a heading.
  const { body, title } = splitFrontMatter(normalizeText(source).replace(/^\uFEFF/, ""));
  const tokens = parser.parse(body, {});
  checkDepth(tokens);
  return { blocks: tokensToBlocks(tokens, body), frontMatterTitle: title };
}

/**
 * Counted as a syntax tree would count it: each quote, list, item and paragraph is a level, and
 * so is each level of inline content (a link's text is one deeper than the paragraph).
 */
function checkDepth(tokens: readonly Token[]): void {
  let deepest = 0;
  for (const token of tokens) {
    deepest = Math.max(deepest, token.level + 1);
    for (const child of token.children ?? []) deepest = Math.max(deepest, token.level + child.level + 1);
  }
  if (deepest <= MAX_DEPTH) return;
  const depth = deepest >= PARSER_NESTING ? `at least ${PARSER_NESTING}` : `${deepest}`;
  throw new ParseError(
    `The Markdown document nests quotes, lists or emphasis ${depth} levels deep; the limit is ${MAX_DEPTH}. Simplify its structure (or save it as plain text) and upload again.`,
  );
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
