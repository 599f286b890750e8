// What the documentation checks read from a Markdown file: its headings' anchors as GitHub makes
// them, and its links. markdown-it parses the file, so code blocks and inline code are never read
// as links or headings.
import MarkdownIt, { type Token } from "markdown-it";

const md = new MarkdownIt({ html: true });

/**
 * GitHub's anchor for a heading: the text lower-cased, everything but letters, digits, spaces,
 * hyphens and underscores removed, spaces turned into hyphens. Repeats get -1, -2, ... (`seen`
 * counts them per file).
 */
export function slug(text: string, seen?: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
  if (!seen) return base;
  const n = seen.get(base) ?? 0;
  seen.set(base, n + 1);
  return n === 0 ? base : `${base}-${n}`;
}

/** The text a reader sees in an inline token: code spans keep their content, markup goes. */
function plainText(inline: Token): string {
  return (inline.children ?? [])
    .filter((t) => t.type === "text" || t.type === "code_inline" || t.type === "html_inline")
    .map((t) => (t.type === "html_inline" ? "" : t.content))
    .join("");
}

const HTML_ANCHOR = /<a\s+(?:[^>]*\s)?(?:id|name)="([^"]+)"/g;

/** Every anchor a link into this file may name: its headings' slugs and explicit `<a id>`s. */
export function anchorsOf(markdown: string): Set<string> {
  const tokens = md.parse(markdown, {});
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.type === "heading_open") anchors.add(slug(plainText(tokens[i + 1]!), seen));
    if (t.type === "html_block" || t.type === "inline") {
      const html = t.type === "inline" ? (t.children ?? []).filter((c) => c.type === "html_inline").map((c) => c.content).join("") : t.content;
      for (const m of html.matchAll(HTML_ANCHOR)) anchors.add(m[1]!);
    }
  });
  return anchors;
}

export interface MarkdownLink {
  href: string;
  /** 1-based line of the paragraph or table row the link is in */
  line: number;
}

/** Every link and image target of the file, with the line it is on. */
export function linksOf(markdown: string): MarkdownLink[] {
  const out: MarkdownLink[] = [];
  let line = 1;
  for (const block of md.parse(markdown, {})) {
    // table cells carry no line of their own: they are on the line of the row before them
    if (block.map) line = block.map[0] + 1;
    if (block.type !== "inline") continue;
    for (const t of block.children ?? []) {
      const href = t.type === "link_open" ? t.attrGet("href") : t.type === "image" ? t.attrGet("src") : null;
      if (href !== null) out.push({ href: String(href), line });
    }
  }
  return out;
}
