// Structure limits checked before the expensive parsing steps. Readability and turndown walk the
// DOM recursively and their cost grows with the square of the nesting depth, so a small file of
// deeply nested <div>s could hold an ingest worker for a minute (docs/decisions.md, "Bounded
// parsing"). Real documents stay far below these numbers; a file above one fails at once with a
// reason naming the limit.
import { ParseError } from "./errors.js";

export const LIMITS = {
  /** deepest element nesting in HTML (pages, crawled pages, DOCX converted to HTML) */
  htmlDepth: 256,
  /** elements in one HTML document */
  htmlElements: 200_000,
  /** pages of one PDF */
  pdfPages: 5_000,
  /** rows of one CSV file */
  csvRows: 1_000_000,
  /** columns of one CSV row */
  csvColumns: 2_000,
  /** values (objects, arrays, scalars) in one JSON document */
  jsonValues: 2_000_000,
} as const;

// Elements whose end tag may be omitted (the parser closes them implicitly) or that never have
// one: they do not deepen the tree the way an unclosed <div> does, so they are not counted.
const NOT_NESTING = new Set(
  (
    "area base br col embed hr img input link meta param source track wbr " +
    "p li dt dd tr td th thead tbody tfoot colgroup caption option optgroup rb rt rp html head body"
  ).split(" "),
);
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "noscript", "template"]);
const TAG = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

export interface HtmlShape {
  maxDepth: number;
  elements: number;
}

/** Nesting depth and element count of HTML from one linear pass over its tags (no DOM). */
export function htmlShape(html: string): HtmlShape {
  const open: string[] = [];
  let maxDepth = 0;
  let elements = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    const name = m[2]?.toLowerCase();
    if (!name) continue; // a comment
    if (m[1]) {
      const at = open.lastIndexOf(name);
      if (at >= 0) open.length = at;
      continue;
    }
    elements++;
    if (RAW_TEXT.has(name)) {
      // skip to the matching end tag: markup inside a script or style is text
      const close = new RegExp(`</${name}`, "gi");
      close.lastIndex = TAG.lastIndex;
      TAG.lastIndex = close.exec(html)?.index ?? html.length;
      continue;
    }
    if (NOT_NESTING.has(name) || m[3]?.trimEnd().endsWith("/")) continue;
    open.push(name);
    if (open.length > maxDepth) maxDepth = open.length;
  }
  return { maxDepth, elements };
}

/** Throws a ParseError naming the limit when the HTML is too deep or too large to parse safely. */
export function checkHtmlShape(html: string, what = "HTML document"): void {
  const shape = htmlShape(html);
  if (shape.maxDepth > LIMITS.htmlDepth) {
    throw new ParseError(
      `The ${what} nests elements ${shape.maxDepth} levels deep; the limit is ${LIMITS.htmlDepth}. Simplify its structure (or save it as plain text) and upload again.`,
    );
  }
  if (shape.elements > LIMITS.htmlElements) {
    throw new ParseError(
      `The ${what} has ${shape.elements.toLocaleString("en-US")} elements; the limit is ${LIMITS.htmlElements.toLocaleString("en-US")}. Split it into smaller files and upload again.`,
    );
  }
}

/** Throws when a count passes its limit; `what` names the thing counted, e.g. "pages". */
export function checkCount(count: number, limit: number, what: string, kind: string): void {
  if (count > limit) {
    throw new ParseError(
      `The ${kind} file has ${count.toLocaleString("en-US")} ${what}; the limit is ${limit.toLocaleString("en-US")}. Split it into smaller files and upload again.`,
    );
  }
}

/**
 * Wall-clock limit of one parse, proportional to the file's size: a small file that takes long is
 * pathological and should fail quickly, a large one gets the time its size needs.
 */
export function parseTimeoutMs(sizeBytes: number, kind?: string): number {
  const perMb = 4_000;
  // 15 s at least: a normal file parses in well under a second, but a test machine or a busy
  // server running two parses beside the model can be many times slower (structure limits, not
  // this clock, are what stop pathological files quickly)
  const base = Math.round(Math.min(120_000, 15_000 + (sizeBytes / (1024 * 1024)) * perMb));
  // a PDF may turn out to be a scan read page by page with OCR (seconds a page)
  return kind === "pdf" ? Math.max(60_000, base * 3) : base;
}
