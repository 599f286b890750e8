// XML help (GNOME's Mallard pages, /usr/share/help/C/*/*.page, and DocBook manuals such as
// Gnumeric's) -> a document: the page title and a Mallard <desc> (a one-line summary written for
// people, often a plain question or task) ask for the page's prose; section titles (Mallard
// <section>, DocBook <sect1>..<sect5>, <section>, <chapter>) start sections. Credits, revisions,
// links, screenshots and unknown entities (&gnum;) go.
import { Parser } from "htmlparser2";
import { cleanText, type MinedDocument, type Section } from "../sections.js";

const SKIP = new Set(["credit", "revision", "link", "links", "include", "code", "screen", "media", "license", "screenshot", "mediaobject", "programlisting", "indexterm"]);
const SECTIONS = new Set(["section", "sect1", "sect2", "sect3", "sect4", "sect5", "chapter", "appendix", "refsect1", "refsect2"]);
const PAGES = new Set(["page", "article", "book"]);

export function xmlHelpSections(xml: string): MinedDocument & { desc: string } {
  const sections: Section[] = [];
  const stack: string[] = [];
  const elements: string[] = [];
  let depth = 0;
  let skip = 0;
  let inInfo = 0;
  let title: string | null = null;
  let desc: string | null = null;
  let pageTitle = "";
  let pageDesc = "";
  let text = "";
  const flush = () => {
    if (text.trim()) sections.push({ headings: stack.filter(Boolean), text: cleanText(text) });
    text = "";
  };
  const parser = new Parser(
    {
      onopentag(name) {
        const parent = elements.at(-1);
        elements.push(name);
        if (SKIP.has(name)) skip++;
        if (name === "info") inInfo++;
        if (SECTIONS.has(name)) {
          flush();
          depth++;
        }
        // only page and section titles are headings (steps, notes and figures have titles too)
        if (name === "title" && inInfo === 0 && parent !== undefined && (PAGES.has(parent) || SECTIONS.has(parent))) title = "";
        if (name === "desc" && inInfo > 0) desc = "";
        if (name === "p" || name === "item") text += "\n";
      },
      ontext(data) {
        if (skip > 0) return;
        if (title !== null) title += data;
        else if (desc !== null) desc += data;
        else if (inInfo === 0) text += data;
      },
      onclosetag(name) {
        elements.pop();
        if (SKIP.has(name)) skip--;
        if (name === "info") inInfo--;
        if (name === "title" && title !== null) {
          const t = cleanText(title).replace(/\n/g, " ");
          if (!pageTitle) pageTitle = t;
          stack.length = depth;
          stack[depth] = t;
          title = null;
        }
        if (name === "desc" && desc !== null) {
          if (!pageDesc) pageDesc = cleanText(desc).replace(/\n/g, " ");
          desc = null;
        }
        if (SECTIONS.has(name)) {
          flush();
          depth--;
          stack.length = depth + 1;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml.replace(/&[A-Za-z][\w.-]*;/g, (e) => (/^&(amp|lt|gt|quot|apos);$/.test(e) ? e : " ")));
  parser.end();
  flush();
  return { title: pageTitle, desc: pageDesc, sections };
}
