// Shape of the documentation question set (issue 16 item 1): every line parses, the kinds are
// balanced, there are at least 80 questions, and every judged page exists in the docs directory
// when that is installed. Loads no docs and crawls nothing (npm run bench:questions does).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { QUESTION_KINDS, docsDir, docsPages, missingPages, pageOf, parseQuestions } from "../../src/evaluation/bench/docs-questions/questions.js";

const FILE = path.resolve(import.meta.dirname, "../../src/evaluation/question-sets/node-api.jsonl");
const { questions, errors } = parseQuestions(fs.readFileSync(FILE, "utf8"));

describe("the Node.js docs question set", () => {
  it("parses: one valid question object per line, unique ids", () => {
    expect(errors).toEqual([]);
    const lines = fs.readFileSync(FILE, "utf8").split("\n").filter((l) => l.trim());
    expect(questions).toHaveLength(lines.length);
  });

  it("has at least 80 questions, the kinds balanced (each within 20-30 % of the set)", () => {
    expect(questions.length).toBeGreaterThanOrEqual(80);
    for (const kind of QUESTION_KINDS) {
      const share = questions.filter((q) => q.kind === kind).length / questions.length;
      expect(share, kind).toBeGreaterThanOrEqual(0.2);
      expect(share, kind).toBeLessThanOrEqual(0.3);
    }
  });

  it("asks no question twice", () => {
    const texts = questions.map((q) => q.question.trim().toLowerCase());
    expect(new Set(texts).size).toBe(texts.length);
  });

  const dir = docsDir();
  const pages = docsPages(dir);
  if (!pages) console.warn(`skipping the page check of the question set: ${dir} does not exist (Debian's nodejs package installs it; or set QUESTIONS_DOCS_DIR)`);
  it.skipIf(!pages)("judges only pages that exist in the docs directory", () => {
    expect(pages!.length).toBeGreaterThan(50);
    expect(missingPages(questions, pages!)).toEqual([]);
  });
});

describe("question file checks", () => {
  it("reports bad lines with their numbers", () => {
    const text = [
      `{"id":"a-1","kind":"keyword","question":"fs.watch","relevant":{"fs.html":2}}`,
      `not json`,
      `{"id":"a-1","kind":"keyword","question":"fs.watch again","relevant":{"fs.html":2}}`,
      `{"id":"a-2","kind":"riddle","question":"x?","relevant":{"all.html":2,"fs.html":3}}`,
      `{"id":"a-3","kind":"howto","question":"how do I","relevant":{"fs.html":1}}`,
    ].join("\n");
    const r = parseQuestions(text);
    expect(r.questions.map((q) => q.id)).toEqual(["a-1", "a-1"]);
    expect(r.errors.join("\n")).toMatch(/line 2: .*JSON/);
    expect(r.errors).toContain("line 3: duplicate id a-1");
    expect(r.errors).toContain("line 4: kind must be one of keyword, natural, howto, conceptual");
    expect(r.errors).toContain("line 4: 'all.html' is not a page of the set");
    expect(r.errors).toContain("line 4: grade of fs.html must be 1 or 2");
    expect(r.errors).toContain("line 5: at least one page must have grade 2 (the page that answers it)");
  });

  it("maps a hit's document URL to its page file name", () => {
    expect(pageOf("http://127.0.0.1:4000/api/fs.html")).toBe("fs.html");
    expect(pageOf("http://127.0.0.1:4000/api/child_process.html#spawn")).toBe("child_process.html");
  });
});
