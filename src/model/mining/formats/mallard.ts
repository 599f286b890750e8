// Mallard help pages (GNOME's user help, /usr/share/help/C/*/*.page) -> a document: the page
// title and its <desc> (a one-line summary written for people, often a plain question or task)
// ask for the page's prose; <section> titles start sections. Credits, revisions and links go.
import { Parser } from "htmlparser2";
import { cleanText, type MinedDocument, type Section } from "../sections.js";

const SKIP = new Set(["credit", "revision", "link", "links", "include", "code", "screen", "media", "license"]);

export function mallardSections(xml: string): MinedDocument & { desc: string } {
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
    if (text.trim()) sections.push({ headings: [...stack], text: cleanText(text) });
    text = "";
  };
  const parser = new Parser(
    {
      onopentag(name) {
        const parent = elements.at(-1);
        elements.push(name);
        if (SKIP.has(name)) skip++;
        if (name === "info") inInfo++;
        if (name === "section") {
          flush();
          depth++;
        }
        // only page and section titles are headings (steps, notes and figures have titles too)
        if (name === "title" && inInfo === 0 && (parent === "page" || parent === "section")) title = "";
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
          if (depth === 0) pageTitle = t;
          stack.length = depth;
          stack[depth] = t;
          title = null;
        }
        if (name === "desc" && desc !== null) {
          if (!pageDesc) pageDesc = cleanText(desc).replace(/\n/g, " ");
          desc = null;
        }
        if (name === "section") {
          flush();
          depth--;
          stack.length = depth + 1;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  flush();
  return { title: pageTitle, desc: pageDesc, sections };
}
