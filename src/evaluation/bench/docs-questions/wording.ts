// Does a plain-language question avoid its answer page's own words? The LibreOffice and PostgreSQL
// sets' natural and how-to questions are written the way a user who does not know the product's
// vocabulary asks (issue 27 item 6), so their content words (lower-cased, stop words dropped,
// Porter-stemmed like the lexical index) may share at most one word with the answer page's title
// and at most a third of them may appear in its headings. The tests check every such question
// against every page it grades 2.
import fs from "node:fs";
import path from "node:path";
import { stemmer } from "stemmer";
import { STOP_WORDS } from "../../../search/lexical/parse-query.js";
import { tokenizeWords } from "../../../search/lexical/tokenize.js";
import { isPlainQuestion, type DocsQuestion } from "./questions.js";
import type { DocsSet } from "./sets.js";

export const MAX_TITLE_OVERLAP = 1;
export const MAX_HEADING_SHARE = 1 / 3;

/** The distinct content words of a text: folded, stop words dropped, Porter-stemmed. */
export function contentStems(text: string): Set<string> {
  return new Set(
    tokenizeWords(text)
      .map((t) => t.norm)
      .filter((w) => !STOP_WORDS.has(w))
      .map((w) => stemmer(w) || w),
  );
}

function textOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&(#39|apos);/g, "'")
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
}

/** A page's <title> and the text of its <h1>-<h6> headings. */
export function titleAndHeadings(html: string): { title: string; headings: string[] } {
  const title = textOf(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? "");
  const headings = [...html.matchAll(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi)].map((m) => textOf(m[2]!)).filter(Boolean);
  return { title, headings };
}

export interface WordingCheck {
  /** the question's content words */
  words: string[];
  /** those in the page's title */
  inTitle: string[];
  /** those in the page's headings */
  inHeadings: string[];
  ok: boolean;
}

/** The question's content words against one answer page's title and headings. */
export function checkWording(question: string, pageHtml: string): WordingCheck {
  const words = [...contentStems(question)];
  const page = titleAndHeadings(pageHtml);
  const title = contentStems(page.title);
  const headings = contentStems(page.headings.join(" "));
  const inTitle = words.filter((w) => title.has(w));
  const inHeadings = words.filter((w) => headings.has(w));
  const ok = words.length > 0 && inTitle.length <= MAX_TITLE_OVERLAP && inHeadings.length <= words.length * MAX_HEADING_SHARE;
  return { words, inTitle, inHeadings, ok };
}

/**
 * The set's plain-language questions (natural, how-to) worded too close to a page they are judged
 * to answer (grade 2), one line each; pages not in `pages` (docs absent) are skipped.
 */
export function plainWordingProblems(questions: DocsQuestion[], dir: string, set: DocsSet, pages: readonly string[]): string[] {
  const bad: string[] = [];
  const present = new Set(pages);
  for (const q of questions.filter(isPlainQuestion)) {
    for (const [page, grade] of Object.entries(q.relevant)) {
      if (grade !== 2 || !present.has(page)) continue;
      const c = checkWording(q.question, fs.readFileSync(path.join(dir, set.pagesDir, page), "utf8"));
      if (!c.ok) bad.push(`${q.id} vs ${page}: title shares [${c.inTitle}], headings share ${c.inHeadings.length} of ${c.words.length} [${c.inHeadings}]`);
    }
  }
  return bad;
}
