// HTML manuals -> sections, fast enough for tens of thousands of pages (a streaming parser rather
// than the ingest pipeline's readability + Markdown conversion, which is built for fidelity).
// Navigation, scripts, code listings and permalink anchors are skipped: the model learns from
// prose. Headings h1-h6 start sections; the title is the <title> up to its site suffix.
import { Parser } from "htmlparser2";
import { cleanText, type Definition, type MinedDocument, type Section } from "./sections.js";

const SKIP = new Set(["script", "style", "nav", "header", "footer", "aside", "form", "button", "select", "noscript", "pre", "svg", "template"]);
const BLOCK = new Set(["p", "div", "li", "dd", "dt", "tr", "td", "th", "br", "table", "ul", "ol", "dl", "blockquote", "section", "article"]);
const HEADING = /^h([1-6])$/;
/** class names of page chrome in common generators (Sphinx, DocBook, texinfo) */
const CHROME_CLASS = /\b(headerlink|related|sphinxsidebar|footer|navheader|navfooter|breadcrumbs?|toc|contents|nav-panel|copiable-anchor)\b/;

/** " — Python 3.11 documentation", " | Django", " - GIMP": the site's name after the page's. */
export function pageTitle(raw: string): string {
  const t = cleanText(raw.replace(/\s+/g, " "));
  const cut = t.split(/ [\u2014|\u2013] | - (?=[A-Z])/)[0]!;
  return cut.trim() || t;
}

/** A heading without its section number ("4.4.1. Activating the Tool", "A.2 Mex-Files"). */
export function headingText(raw: string): string {
  return cleanText(raw.replace(/\s+/g, " ")).replace(/^(chapter|section|appendix)?\s*([A-Z]|\d+)(\.\d+)*\.?\s+(?=\S)/i, "");
}

export function htmlSections(html: string): MinedDocument {
  const sections: Section[] = [];
  const stack: string[] = [];
  let title = "";
  let inTitle = false;
  let skip = 0;
  const skipStack: boolean[] = [];
  let heading: { level: number; text: string } | null = null;
  let text = "";
  // definition lists (<dt> term, <dd> description): API entries, options, glossaries
  const definitions: Definition[] = [];
  let term: string | null = null;
  let dtText: string | null = null;
  let ddDepth = 0;
  let ddText = "";
  const flush = () => {
    const t = cleanText(text);
    if (t) sections.push({ headings: [...stack], text: t });
    text = "";
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const skipped = SKIP.has(name) || CHROME_CLASS.test(attrs.class ?? "") || attrs.role === "navigation";
        skipStack.push(skipped);
        if (skipped) skip++;
        if (name === "title") inTitle = true;
        if (skip === 0 && name === "dt" && ddDepth === 0) dtText = "";
        if (skip === 0 && name === "dd" && ddDepth++ === 0) ddText = "";
        const h = HEADING.exec(name);
        if (h && skip === 0) {
          flush();
          heading = { level: Number(h[1]), text: "" };
        } else if (BLOCK.has(name)) text += "\n";
      },
      ontext(data) {
        if (inTitle) title += data;
        else if (skip > 0) return;
        else if (heading) heading.text += data;
        else {
          text += data;
          if (dtText !== null) dtText += data;
          else if (ddDepth > 0) ddText += data;
        }
      },
      onclosetag(name) {
        if (skipStack.pop()) skip--;
        if (name === "title") inTitle = false;
        if (name === "dt" && dtText !== null) {
          term = cleanText(dtText).replace(/\n/g, " ");
          dtText = null;
        }
        if (name === "dd" && ddDepth > 0 && --ddDepth === 0 && term) {
          definitions.push({ term, text: cleanText(ddText), headings: stack.filter(Boolean) });
          term = null;
        }
        if (heading && HEADING.test(name)) {
          const h = heading as { level: number; text: string };
          stack.length = Math.min(stack.length, h.level - 1);
          while (stack.length < h.level - 1) stack.push("");
          stack.push(headingText(h.text));
          heading = null;
        } else if (BLOCK.has(name)) text += "\n";
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return { title: pageTitle(title), sections: sections.map((s) => ({ ...s, headings: s.headings.filter(Boolean) })), definitions };
}
