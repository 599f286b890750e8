// The PostgreSQL documentation question set (2026-11-29, a set for confirming what the Node.js and
// LibreOffice sets chose): the file's shape (at least 90 questions, two thirds plain-language), its
// plain-language questions not in their answer pages' titles and headings, every judged page present
// when the docs are installed. Crawls nothing (npm run bench:questions -- --set postgres does).
import { describe, expect, it } from "vitest";
import { missingPages, isPlainQuestion } from "../../src/evaluation/bench/docs-questions/questions.js";
import { POSTGRES_SET, basenamePage, docsVersion } from "../../src/evaluation/bench/docs-questions/sets.js";
import { installedDocs, itParses, itWordsPlainQuestionsApart, questionSetFile } from "./question-set-file.js";

const SET = POSTGRES_SET;
const file = questionSetFile(SET);
const { questions } = file;
const plain = isPlainQuestion;

describe("the PostgreSQL documentation question set", () => {
  itParses(file);

  it("has at least 90 questions, at least 60 of them plain-language (natural, how-to), and keyword and conceptual ones besides", () => {
    expect(questions.length).toBeGreaterThanOrEqual(90);
    expect(questions.filter(plain).length).toBeGreaterThanOrEqual(60);
    expect(questions.filter((q) => q.kind === "keyword").length).toBeGreaterThanOrEqual(10);
    expect(questions.filter((q) => q.kind === "conceptual").length).toBeGreaterThanOrEqual(10);
  });

  it("judges a hit by its URL's file name", () => {
    expect(SET.pageOf("http://127.0.0.1:4000/html/sql-copy.html#id-1.9.3.55.9")).toBe("sql-copy.html");
    expect(SET.pageOf).toBe(basenamePage);
  });

  const docs = installedDocs(SET, "PostgreSQL question set");
  const { pages } = docs;

  it.skipIf(!pages)("judges only pages that exist in the docs, and leaves out the table of contents and the index of terms", () => {
    expect(pages!.length).toBeGreaterThan(1000);
    expect(pages).not.toContain("bookindex.html");
    expect(missingPages(questions, pages!)).toEqual([]);
  });

  it.skipIf(!pages)("names the release the docs are", () => {
    expect(docsVersion(SET, docs.dir, pages!)).toMatch(/^PostgreSQL 15/);
  });

  itWordsPlainQuestionsApart(SET, questions, docs);
});
