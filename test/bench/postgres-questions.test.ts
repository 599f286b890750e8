// The PostgreSQL documentation question set (2026-11-29, a set for confirming what the Node.js and
// LibreOffice sets chose): the file's shape (at least 90 questions, two thirds plain-language), its
// plain-language questions not in their answer pages' titles and headings, every judged page present
// when the docs are installed. Crawls nothing (npm run bench:questions -- --set postgres does).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { docsDir, docsPages, missingPages, isPlainQuestion, parseQuestions, repeatedQuestions } from "../../src/evaluation/bench/docs-questions/questions.js";
import { POSTGRES_SET, basenamePage } from "../../src/evaluation/bench/docs-questions/sets.js";
import { plainWordingProblems } from "../../src/evaluation/bench/docs-questions/wording.js";

const SET = POSTGRES_SET;
const FILE = path.resolve(import.meta.dirname, "../..", SET.questions);
const { questions, errors } = parseQuestions(fs.readFileSync(FILE, "utf8"), SET);
const plain = isPlainQuestion;

describe("the PostgreSQL documentation question set", () => {
  it("parses: one valid question object per line, unique ids and questions", () => {
    expect(errors).toEqual([]);
    expect(questions.length).toBe(fs.readFileSync(FILE, "utf8").split("\n").filter((l) => l.trim()).length);
    expect(repeatedQuestions(questions)).toEqual([]);
  });

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

  const dir = docsDir(process.env, SET);
  const pages = docsPages(dir, SET);
  if (!pages) console.warn(`skipping the page checks of the PostgreSQL question set: ${dir} does not exist (${SET.install}, or set ${SET.env})`);

  it.skipIf(!pages)("judges only pages that exist in the docs, and leaves out the table of contents and the index of terms", () => {
    expect(pages!.length).toBeGreaterThan(1000);
    expect(pages).not.toContain("bookindex.html");
    expect(missingPages(questions, pages!)).toEqual([]);
  });

  it.skipIf(!pages)("asks its plain-language questions in other words than the answer pages' titles and headings", () => {
    expect(plainWordingProblems(questions, dir, SET, pages!)).toEqual([]);
  });
});
