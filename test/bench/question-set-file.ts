// What the tests of the documentation question sets (libreoffice-questions, postgres-questions)
// check alike: the file parses one question a line without repeats, and, where the docs are
// installed, its plain-language questions avoid their answer pages' words.
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { docsDir, docsPages, parseQuestions, repeatedQuestions, type DocsQuestion } from "../../src/evaluation/bench/docs-questions/questions.js";
import type { DocsSet } from "../../src/evaluation/bench/docs-questions/sets.js";
import { plainWordingProblems } from "../../src/evaluation/bench/docs-questions/wording.js";

/** The set's question file, parsed. */
export function questionSetFile(set: DocsSet): { text: string; questions: DocsQuestion[]; errors: string[] } {
  const text = fs.readFileSync(path.resolve(import.meta.dirname, "../..", set.questions), "utf8");
  return { text, ...parseQuestions(text, set) };
}

/** Registers the parse check: one valid question object a line, unique ids and questions. */
export function itParses(file: ReturnType<typeof questionSetFile>): void {
  it("parses: one valid question object per line, unique ids and questions", () => {
    expect(file.errors).toEqual([]);
    expect(file.questions.length).toBe(file.text.split("\n").filter((l) => l.trim()).length);
    expect(repeatedQuestions(file.questions)).toEqual([]);
  });
}

/** The set's docs directory and pages; pages null, with the reason printed, when they are not installed. */
export function installedDocs(set: DocsSet, what: string): { dir: string; pages: string[] | null } {
  const dir = docsDir(process.env, set);
  const pages = docsPages(dir, set);
  if (!pages) console.warn(`skipping the page checks of the ${what}: ${path.join(dir, set.pagesDir)} does not exist (${set.install}, or set ${set.env})`);
  return { dir, pages };
}

/** Registers the wording check of the plain-language questions (skipped without the docs). */
export function itWordsPlainQuestionsApart(set: DocsSet, questions: DocsQuestion[], docs: ReturnType<typeof installedDocs>): void {
  it.skipIf(!docs.pages)("asks its plain-language questions in other words than the answer pages' titles and headings", () => {
    expect(plainWordingProblems(questions, docs.dir, set, docs.pages!)).toEqual([]);
  });
}
