// PDF -> blocks with page numbers. pdf.js (via unpdf) gives positioned text items; we rebuild
// lines, then paragraphs (by vertical gaps), headings (by font size relative to body text), and
// drop running headers/footers and page numbers that would otherwise pollute every chunk.
import { extractTextItems, getDocumentProxy, getMeta, getResolvedPDFJS } from "unpdf";
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { cleanInline, finishDocument, titleFromFilename } from "./common.js";
import { ParseError } from "./errors.js";
import { LIMITS, checkCount } from "./limits.js";
import { MAX_OCR_PAGES, ocrAvailable, ocrPdf } from "./ocr.js";
import { textToBlocks } from "./text.js";

interface TextItem {
  str: string;
  y: number;
  fontSize: number;
  hasEOL: boolean;
}

interface Line {
  text: string;
  y: number;
  fontSize: number;
  page: number;
}

const NO_TEXT =
  "The PDF has no extractable text (is it a scanned image?). Run it through OCR or export it with a text layer, then upload again.";
const NO_TEXT_NO_OCR =
  "The PDF has no text layer (it looks like a scanned image) and OCR is not available on this server (it needs tesseract-ocr and poppler-utils). Run it through OCR or export it with a text layer, then upload again.";

// A scanned PDF often carries a few words of real text (a printer's or scanner's header): below
// this many characters a page on average, pages that hold images are read with OCR instead.
const SCANNED_MAX_CHARS_PER_PAGE = 60;

type Proxy = Awaited<ReturnType<typeof getDocumentProxy>>;

/** Whether any of the first pages paints an image (a scan is one image a page). */
async function paintsImages(proxy: Proxy): Promise<boolean> {
  const { OPS } = await getResolvedPDFJS();
  const imageOps = new Set([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageXObjectRepeat]);
  for (let n = 1; n <= Math.min(proxy.numPages, 5); n++) {
    const ops = await (await proxy.getPage(n)).getOperatorList();
    if (ops.fnArray.some((fn: number) => imageOps.has(fn))) return true;
  }
  return false;
}

/** Blocks of a scanned PDF read by OCR, one or more paragraphs a page. */
async function ocrBlocks(bytes: Uint8Array): Promise<ParsedBlock[]> {
  if (!ocrAvailable()) throw new ParseError(NO_TEXT_NO_OCR);
  const pages = await ocrPdf(bytes);
  const blocks = pages.flatMap((p) => textToBlocks(p.text).map((b) => ({ ...b, text: cleanInline(b.text), page: p.page })));
  const usable = blocks.filter((b) => /\p{L}{2,}/u.test(b.text));
  if (usable.length === 0) throw new ParseError(NO_TEXT);
  return usable;
}

// A heading is noticeably larger than body text, short, and not a whole paragraph.
const HEADING_SIZE_RATIO = 1.2;
const HEADING_MAX_CHARS = 150;
// Baseline gaps above this multiple of the font size start a new paragraph.
const PARAGRAPH_GAP_RATIO = 1.65;

function toLines(items: TextItem[], page: number): Line[] {
  const lines: Line[] = [];
  let parts: string[] = [];
  let y = 0;
  let size = 0;
  const flush = () => {
    const text = cleanInline(parts.join(""));
    if (text) lines.push({ text, y, fontSize: size, page });
    parts = [];
    size = 0;
  };
  for (const item of items) {
    if (parts.length > 0 && item.str && Math.abs(item.y - y) > Math.max(item.fontSize, size) * 0.5) flush();
    if (item.str) {
      if (parts.length === 0) y = item.y;
      parts.push(item.str);
      size = Math.max(size, item.fontSize);
    }
    if (item.hasEOL) flush();
  }
  flush();
  return lines;
}

function roundSize(size: number): number {
  return Math.round(size * 2) / 2;
}

/** The font size most characters are set in. */
function bodyFontSize(lines: Line[]): number {
  const weight = new Map<number, number>();
  for (const l of lines) weight.set(roundSize(l.fontSize), (weight.get(roundSize(l.fontSize)) ?? 0) + l.text.length);
  let best = 0;
  let bestWeight = -1;
  for (const [size, w] of weight) if (w > bestWeight) [best, bestWeight] = [size, w];
  return best;
}

const PAGE_NUMBER = /^(?:page\s*)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$|^[ivxlcdm]{1,6}$/i;

/** Drops page numbers and lines repeated at the top or bottom of most pages. */
function dropRunningLines(pages: Line[][]): Line[][] {
  const edgeKey = (l: Line) => l.text.toLowerCase().replace(/\d+/g, "#");
  // On a page of a few lines every line is at an "edge": such pages neither vote for nor lose
  // running lines, or short chapter pages ("Chapter 1 ...", "Chapter 2 ...") would vanish.
  const MIN_LINES = 5;
  const counts = new Map<string, number>();
  for (const lines of pages) {
    if (lines.length < MIN_LINES) continue;
    const edges = new Set([...lines.slice(0, 2), ...lines.slice(-2)].map(edgeKey));
    for (const k of edges) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const repeated = (l: Line) => pages.length >= 3 && (counts.get(edgeKey(l)) ?? 0) >= Math.max(3, pages.length * 0.6);
  return pages.map((lines) =>
    lines.filter((l, i) => {
      const atEdge = i < 2 || i >= lines.length - 2;
      if (!atEdge) return true;
      if (PAGE_NUMBER.test(l.text)) return false;
      return lines.length < MIN_LINES || !repeated(l);
    }),
  );
}

function joinLines(lines: string[]): string {
  let out = "";
  for (const line of lines) {
    if (out === "") out = line;
    // Soft hyphenation at line ends: "recog-" + "nition" -> "recognition".
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(line)) out = out.slice(0, -1) + line;
    else out += ` ${line}`;
  }
  return out;
}

function toBlocks(pages: Line[][]): ParsedBlock[] {
  const all = pages.flat();
  const body = bodyFontSize(all);
  const isHeading = (l: Line) =>
    body > 0 && l.fontSize >= body * HEADING_SIZE_RATIO && l.text.length <= HEADING_MAX_CHARS && /\p{L}/u.test(l.text);
  const headingSizes = [...new Set(all.filter(isHeading).map((l) => roundSize(l.fontSize)))].sort((a, b) => b - a);
  const levelOf = (size: number) => Math.min(headingSizes.indexOf(roundSize(size)) + 1, 6);

  const blocks: ParsedBlock[] = [];
  for (const lines of pages) {
    let para: Line[] = [];
    const flush = () => {
      if (para.length === 0) return;
      const first = para[0];
      if (isHeading(first)) blocks.push({ type: "heading", level: levelOf(first.fontSize), text: joinLines(para.map((l) => l.text)), page: first.page });
      else blocks.push({ type: "paragraph", text: joinLines(para.map((l) => l.text)), page: first.page });
      para = [];
    };
    for (const line of lines) {
      const prev = para[para.length - 1];
      if (prev) {
        const gap = prev.y - line.y;
        const sameKind = isHeading(prev) === isHeading(line) && roundSize(prev.fontSize) === roundSize(line.fontSize);
        const size = Math.max(prev.fontSize, line.fontSize);
        // A wrapped heading continues only while it stays short; body paragraphs break on big gaps.
        if (!sameKind || gap < 0 || gap > size * PARAGRAPH_GAP_RATIO || (isHeading(line) && para.length >= 3)) flush();
      }
      para.push(line);
    }
    flush();
  }
  return blocks;
}

function usableTitle(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const title = cleanInline(value);
  if (!title || title.length > 300) return undefined;
  // Tools often store the source file name or a placeholder instead of a real title.
  if (/^(untitled|document\d*|title|microsoft word - .*|.*\.(docx?|pdf|txt|tex|indd|odt))$/i.test(title)) return undefined;
  return title;
}

function describePdfError(err: unknown): ParseError {
  const name = err instanceof Error ? err.name : "";
  if (name === "PasswordException") {
    return new ParseError("The PDF is password-protected. Remove the password (save an unprotected copy) and upload again.", { cause: err });
  }
  return new ParseError("The file is not a valid PDF document (its structure is damaged). Re-export or re-save the PDF and upload again.", {
    cause: err,
  });
}

export async function parsePdf(bytes: Buffer, filename: string): Promise<ParsedDocument> {
  // pdf.js may take ownership of (detach) the buffer it is given, so it gets a copy.
  const data = new Uint8Array(bytes);
  const forOcr = new Uint8Array(bytes);
  let proxy: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    proxy = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false });
  } catch (err) {
    throw describePdfError(err);
  }
  try {
    checkCount(proxy.numPages, LIMITS.pdfPages, "pages", "PDF");
    const [{ totalPages, items }, meta] = await Promise.all([
      extractTextItems(proxy),
      getMeta(proxy).catch(() => ({ info: {} as Record<string, unknown> })),
    ]);
    const pages = dropRunningLines(items.map((pageItems, i) => toLines(pageItems, i + 1)));
    let blocks = toBlocks(pages);
    const chars = blocks.reduce((n, b) => n + b.text.length, 0);
    const scanned = chars < SCANNED_MAX_CHARS_PER_PAGE * totalPages && (await paintsImages(proxy));
    if (scanned) blocks = await ocrBlocks(forOcr);
    if (!blocks.some((b) => b.type !== "heading")) throw new ParseError(NO_TEXT);

    const info = meta.info as Record<string, unknown>;
    const firstHeading = blocks.find((b) => b.type === "heading" && b.level === 1 && b.page === 1)?.text;
    const firstLine = blocks[0]?.text;
    const title =
      usableTitle(info.Title) ??
      firstHeading ??
      (firstLine && firstLine.length <= 200 ? firstLine : undefined) ??
      titleFromFilename(filename);

    const metadata: Record<string, unknown> = { page_count: totalPages };
    if (scanned) {
      metadata.ocr = true;
      if (totalPages > MAX_OCR_PAGES) metadata.ocr_pages = MAX_OCR_PAGES;
    }
    for (const [key, field] of [
      ["author", "Author"],
      ["subject", "Subject"],
      ["language", "Language"],
    ] as const) {
      const v = info[field];
      if (typeof v === "string" && v.trim()) metadata[key] = cleanInline(v);
    }
    return finishDocument({ kind: "pdf", title, blocks, metadata });
  } catch (err) {
    if (err instanceof ParseError) throw err;
    throw describePdfError(err);
  } finally {
    await proxy.destroy().catch(() => undefined);
  }
}
