// Markdown -> blocks. Also the last step of the HTML and DOCX paths (they convert to Markdown
// first), so this is where heading structure is decided for three formats. A small line-based
// reader rather than a full CommonMark parser: we only need block boundaries and heading levels.
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { cleanInline, finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { ParseError } from "./errors.js";
import { stripInline } from "./inline.js";

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_H1 = /^ {0,3}=+[ \t]*$/;
const SETEXT_H2 = /^ {0,3}-+[ \t]*$/;
const THEMATIC = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const TABLE_DELIM = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const LINK_DEF = /^ {0,3}\[[^\]]+\]:\s*\S+/;
const QUOTE = /^ {0,3}> ?/;
const HTML_COMMENT_LINE = /^\s*<!--.*-->\s*$/;

export interface MarkdownBlocks {
  blocks: ParsedBlock[];
  /** `title:` from YAML front matter, when present */
  frontMatterTitle?: string;
}

export function markdownToBlocks(source: string): MarkdownBlocks {
  const lines = normalizeText(source).split("\n");
  const blocks: ParsedBlock[] = [];
  let start = 0;
  let frontMatterTitle: string | undefined;

  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, i) => i > 0 && i < 200 && (l.trim() === "---" || l.trim() === "..."));
    if (end > 0) {
      for (const l of lines.slice(1, end)) {
        const m = /^title:\s*(.+)$/i.exec(l.trim());
        if (m) frontMatterTitle = m[1].trim().replace(/^(["'])(.*)\1$/, "$2").trim() || undefined;
      }
      start = end + 1;
    }
  }

  let para: string[] = [];
  const flushPara = () => {
    const text = cleanInline(stripInline(para.join(" ")));
    if (text) blocks.push({ type: "paragraph", text });
    para = [];
  };

  let i = start;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "" || HTML_COMMENT_LINE.test(line)) {
      flushPara();
      i++;
      continue;
    }

    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      const marker = fence[1];
      const body: string[] = [line.trim()];
      i++;
      while (i < lines.length) {
        const l = lines[i];
        i++;
        body.push(l);
        if (l.trim().startsWith(marker[0].repeat(marker.length)) && l.trim().replace(/[`~]/g, "") === "") break;
      }
      const text = body.join("\n").replace(/\s+$/, "");
      // A fence with nothing inside carries no text worth indexing.
      if (body.slice(1).some((l) => l.trim() && !/^[`~]+$/.test(l.trim()))) blocks.push({ type: "code", text });
      continue;
    }

    const atx = ATX.exec(line);
    if (atx) {
      flushPara();
      const text = cleanInline(stripInline(atx[2] ?? ""));
      if (text) blocks.push({ type: "heading", level: atx[1].length, text });
      i++;
      continue;
    }

    if (para.length > 0 && (SETEXT_H1.test(line) || SETEXT_H2.test(line))) {
      const text = cleanInline(stripInline(para.join(" ")));
      para = [];
      if (text) blocks.push({ type: "heading", level: SETEXT_H1.test(line) ? 1 : 2, text });
      i++;
      continue;
    }

    if (THEMATIC.test(line)) {
      flushPara();
      i++;
      continue;
    }

    if (line.includes("|") && i + 1 < lines.length && TABLE_DELIM.test(lines[i + 1]) && lines[i + 1].includes("-")) {
      flushPara();
      const rows: string[] = [];
      while (i < lines.length && lines[i].trim() !== "" && lines[i].includes("|")) {
        rows.push(stripInline(lines[i].trim()).replace(/[ \t]+/g, " "));
        i++;
      }
      blocks.push({ type: "table", text: rows.join("\n") });
      continue;
    }

    if (LIST_ITEM.test(line) && (para.length === 0 || !/^\s/.test(line))) {
      flushPara();
      const items: string[] = [];
      while (i < lines.length) {
        const l = lines[i];
        if (l.trim() === "") {
          // A blank line ends the list unless more items or indented continuation follow.
          let j = i + 1;
          while (j < lines.length && lines[j].trim() === "") j++;
          if (j < lines.length && (LIST_ITEM.test(lines[j]) || /^(?: {2,}|\t)\S/.test(lines[j])) && !FENCE.test(lines[j])) {
            i = j;
            continue;
          }
          break;
        }
        if (ATX.test(l) || FENCE.test(l) || THEMATIC.test(l) || (items.length > 0 && /^\S/.test(l) && !LIST_ITEM.test(l) && isBlockStart(l))) break;
        const item = LIST_ITEM.exec(l);
        if (item) {
          const indent = item[1].replace(/\t/g, "    ").length;
          const depth = Math.min(Math.floor(indent / 2), 8);
          items.push(`${"  ".repeat(depth)}${item[2]} ${cleanInline(stripInline(l.slice(item[0].length)))}`.trimEnd());
        } else if (items.length > 0) {
          items[items.length - 1] += ` ${cleanInline(stripInline(l))}`;
        }
        i++;
      }
      const text = items.filter((t) => t.replace(/^\s*([-*+]|\d+[.)])\s*/, "") !== "").join("\n");
      if (text) blocks.push({ type: "list", text });
      continue;
    }

    if (LINK_DEF.test(line) && para.length === 0) {
      i++;
      continue;
    }

    // Indented code: four spaces after a blank line (inside a paragraph it is a continuation).
    if (para.length === 0 && /^(?: {4}|\t)/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (/^(?: {4}|\t)/.test(lines[i]) || lines[i].trim() === "")) {
        body.push(lines[i].replace(/^(?: {4}|\t)/, ""));
        i++;
      }
      const text = body.join("\n").trim();
      if (text) blocks.push({ type: "code", text });
      continue;
    }

    para.push(QUOTE.test(line) ? line.replace(/^(?: {0,3}> ?)+/, "") : line.trim());
    i++;
  }
  flushPara();
  return { blocks, frontMatterTitle };
}

function isBlockStart(line: string): boolean {
  return ATX.test(line) || FENCE.test(line) || QUOTE.test(line) || LINK_DEF.test(line);
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
