// HTML -> main content -> Markdown -> blocks. Readability drops navigation, footers and other
// page chrome; turndown keeps headings, lists, tables and code as Markdown so the Markdown
// reader can build heading paths. DOCX reuses this path (mammoth gives HTML).
import { Readability } from "@mozilla/readability";
import { parseHTML } from "./dom.js";
import TurndownService from "turndown";
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { cleanInline, finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text } from "./decode.js";
import { ParseError } from "./errors.js";
import { firstH1, markdownToBlocks } from "./markdown.js";
import { checkHtmlShape } from "./limits.js";

const CHROME =
  "script, style, noscript, template, iframe, svg, canvas, nav, aside, button, select, " +
  "[role=navigation], [role=banner], [role=contentinfo], [role=search], [aria-hidden=true], [hidden]";
// <header>/<footer> inside an article hold its title and byline; only page-level ones are chrome.
// (<form> is not chrome: some frameworks wrap the whole page in one.)
const PAGE_SECTIONS = "header, footer";

// Readability sometimes keeps only one section of a long, evenly structured page (API docs);
// if its article has less than this share of the page's non-chrome text, the page is used instead.
const MIN_ARTICLE_SHARE = 0.3;

let turndownService: TurndownService | undefined;

function turndown(): TurndownService {
  if (turndownService) return turndownService;
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", hr: "---" });
  td.remove(["script", "style", "noscript", "template", "iframe", "canvas", "button", "select", "input", "textarea"]);
  td.remove((node) => node.nodeName === "SVG" || node.nodeName === "svg");
  // Core turndown has no table support; a pipe table keeps rows and cells readable as text.
  td.addRule("table", {
    filter: "table",
    replacement: (_content, node) => `\n\n${tableToMarkdown(node as HTMLElement)}\n\n`,
  });
  td.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const alt = (node as HTMLElement).getAttribute("alt")?.trim();
      return alt ? alt : "";
    },
  });
  turndownService = td;
  return td;
}

function cellText(cell: Element): string {
  return cleanInline(cell.textContent ?? "").replace(/\|/g, "\\|");
}

function tableToMarkdown(table: HTMLElement): string {
  const rows: string[][] = [];
  for (const tr of Array.from(table.querySelectorAll("tr"))) {
    const cells = Array.from(tr.children).filter((c) => c.nodeName === "TD" || c.nodeName === "TH");
    const texts = cells.map(cellText);
    if (texts.some((t) => t.length > 0)) rows.push(texts);
  }
  if (rows.length === 0) return "";
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? "").join(" | ")} |`;
  const [head, ...body] = rows;
  return [line(head), `| ${Array.from({ length: width }, () => "---").join(" | ")} |`, ...body.map(line)].join("\n");
}

export interface HtmlContent {
  blocks: ParsedBlock[];
  title?: string;
  metadata: Record<string, unknown>;
}

function metaContent(document: Document, selector: string): string | undefined {
  const value = document.querySelector(selector)?.getAttribute("content");
  return value ? cleanInline(value) || undefined : undefined;
}

/**
 * <title>, then og:title, then the first h1. When <title> is one of the others plus a site name
 * ("Install | Acme Docs"), the shorter form wins: the site name is noise in every result.
 */
function pickTitle(titleTag: string, ogTitle: string | undefined, h1: string): string | undefined {
  for (const candidate of [ogTitle, h1]) {
    if (!candidate || !titleTag || candidate === titleTag) continue;
    const rest = titleTag.startsWith(candidate)
      ? titleTag.slice(candidate.length)
      : titleTag.endsWith(candidate)
        ? titleTag.slice(0, -candidate.length)
        : undefined;
    if (rest !== undefined && /^\s*[|\-–—:·»]\s*\S.*$|^.*\S\s*[|\-–—:·«]\s*$/.test(rest)) return candidate;
  }
  return titleTag || ogTitle || h1 || undefined;
}

function textLength(node: Element | null | undefined): number {
  return (node?.textContent ?? "").replace(/\s+/g, "").length;
}

/** Main content of a full page as blocks; `fragment` skips Readability (mammoth output). */
export function htmlToBlocks(html: string, opts: { fragment?: boolean } = {}): HtmlContent {
  checkHtmlShape(html, opts.fragment ? "document" : "HTML document");
  if (opts.fragment) return { blocks: markdownToBlocks(turndown().turndown(html)).blocks, metadata: {} };

  const { document } = parseHTML(html);
  const title = pickTitle(
    cleanInline(document.querySelector("title")?.textContent ?? ""),
    metaContent(document, 'meta[property="og:title"]'),
    cleanInline(document.querySelector("h1")?.textContent ?? ""),
  );
  const lang = document.documentElement?.getAttribute("lang") || undefined;

  // Readability mutates the DOM it reads, so it gets its own copy.
  const article = new Readability(parseHTML(html).document as unknown as Document).parse();

  for (const el of Array.from(document.querySelectorAll(CHROME))) el.remove();
  for (const el of Array.from(document.querySelectorAll(PAGE_SECTIONS))) if (!el.parentElement?.closest("article, main")) el.remove();
  const body = document.body ?? document.documentElement;
  const pageText = textLength(body);

  // Without any text outside page chrome there is nothing to index, whatever Readability kept.
  let contentHtml = "";
  if (pageText > 0) {
    const articleText = (article?.textContent ?? "").replace(/\s+/g, "").length;
    contentHtml = article?.content && articleText >= pageText * MIN_ARTICLE_SHARE ? article.content : (body?.innerHTML ?? "");
  }

  const metadata: Record<string, unknown> = {};
  if (lang) metadata.lang = lang;
  if (article?.byline) metadata.byline = cleanInline(article.byline);
  if (article?.siteName) metadata.site_name = cleanInline(article.siteName);
  if (article?.publishedTime) metadata.published_time = article.publishedTime;

  const { blocks } = markdownToBlocks(turndown().turndown(contentHtml));
  return { blocks, title, metadata };
}

export function parseHtml(bytes: Buffer, filename: string): ParsedDocument {
  const html = decodeUtf8Text(bytes);
  if (html === null) throw new ParseError("The HTML file is not UTF-8 text. Save it with UTF-8 encoding and upload again.");
  const { blocks, title, metadata } = htmlToBlocks(html);
  return finishDocument({
    kind: "html",
    title: title ?? firstH1(blocks) ?? titleFromFilename(filename),
    blocks,
    metadata,
  });
}
