// The LibreOffice help question set (issue 27 item 6): the file's shape (at least 160 questions,
// half of them plain-language, every module judged), its plain-language questions not in their
// answer pages' words, every judged page present when the help is installed; and the set's page-id
// rule and loopback site on a small fixture. Crawls nothing (npm run bench:questions -- --set
// libreoffice does).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { QUESTION_KINDS, docsDir, docsPages, missingPages, isPlainQuestion, parseQuestions } from "../../src/evaluation/bench/docs-questions/questions.js";
import { LIBREOFFICE_SET, NODE_SET, docsSet, docsVersion, mountedPage } from "../../src/evaluation/bench/docs-questions/sets.js";
import { installedDocs, itParses, itWordsPlainQuestionsApart, questionSetFile } from "./question-set-file.js";
import { serveDocs } from "../../src/evaluation/bench/docs-questions/site.js";
import { checkWording, contentStems, titleAndHeadings } from "../../src/evaluation/bench/docs-questions/wording.js";
import { parseSitemap } from "../../src/crawl/sitemap.js";

const SET = LIBREOFFICE_SET;
const file = questionSetFile(SET);
const { questions } = file;
const plain = isPlainQuestion;
const MODULES = ["shared", "scalc", "swriter", "simpress", "sdraw", "sdatabase", "smath", "sbasic", "schart"];

describe("the LibreOffice help question set", () => {
  itParses(file);

  it("has at least 160 questions, at least half of them plain-language (natural, how-to), every kind 20-30 % of the set", () => {
    expect(questions.length).toBeGreaterThanOrEqual(160);
    expect(questions.filter(plain).length).toBeGreaterThanOrEqual(Math.max(80, questions.length / 2));
    for (const kind of QUESTION_KINDS) {
      const share = questions.filter((q) => q.kind === kind).length / questions.length;
      expect(share, kind).toBeGreaterThanOrEqual(0.2);
      expect(share, kind).toBeLessThanOrEqual(0.3);
    }
  });

  it("covers every module: each answers (grade 2) at least 5 questions, 2 of them plain-language", () => {
    for (const m of MODULES) {
      const answered = questions.filter((q) => Object.entries(q.relevant).some(([p, g]) => g === 2 && p.startsWith(`${m}/`)));
      expect(answered.length, m).toBeGreaterThanOrEqual(5);
      expect(answered.filter(plain).length, m).toBeGreaterThanOrEqual(2);
    }
  });

  const docs = installedDocs(SET, "LibreOffice question set");
  const { pages } = docs;

  it.skipIf(!pages)("judges only pages that exist in the help", () => {
    expect(pages!.length).toBeGreaterThan(1000);
    expect(missingPages(questions, pages!)).toEqual([]);
  });

  it.skipIf(!pages)("names the release the help is", () => {
    expect(docsVersion(SET, docs.dir, pages!)).toMatch(/^LibreOffice \d+\.\d+$/);
  });

  itWordsPlainQuestionsApart(SET, questions, docs);
});

describe("the plain-language wording check", () => {
  const page = `<html><head><title>Freezing Rows or Columns as Headers</title></head><body>
    <h1 id="x">Freezing Rows or Columns as Headers</h1><p>Choose View - Freeze Cells.</p>
    <h2>Unfreezing &amp; splitting</h2></body></html>`;

  it("reads a page's title and headings, entities decoded", () => {
    expect(titleAndHeadings(page)).toEqual({ title: "Freezing Rows or Columns as Headers", headings: ["Freezing Rows or Columns as Headers", "Unfreezing & splitting"] });
  });

  it("compares stemmed content words, stop words dropped", () => {
    expect([...contentStems("How do I keep the top rows visible?")]).toEqual(["keep", "top", "row", "visibl"]);
  });

  it("passes a question in the user's words and fails one in the page's", () => {
    expect(checkWording("how do I keep the top row visible while I scroll down a spreadsheet", page).ok).toBe(true);
    const c = checkWording("freeze rows as headers", page);
    expect(c.inTitle).toEqual(["freez", "row", "header"]);
    expect(c.ok).toBe(false);
    // one title word is allowed, but not a heading share above a third
    expect(checkWording("freezing the sheet", page).ok).toBe(false);
  });
});

describe("the LibreOffice set's page ids and site", () => {
  it("names a page by its path under en-US/text, so names repeated across modules stay apart", () => {
    expect(SET.pageOf("http://127.0.0.1:4000/en-US/text/scalc/guide/autofilter.html")).toBe("scalc/guide/autofilter.html");
    expect(SET.pageOf("http://127.0.0.1:4000/en-US/text/swriter/01/02110000.html#bm_id1")).toBe("swriter/01/02110000.html");
    expect(SET.pageOf("http://127.0.0.1:4000/en-US/text/scalc/01/func_workday.intl.html")).toBe("scalc/01/func_workday.intl.html");
    expect(mountedPage("/en-US/text/", "http://h/other/x.html")).toBe("other/x.html");
    expect(SET.pageShape.test("scalc/guide/autofilter.html")).toBe(true);
    expect(SET.pageShape.test("autofilter.html")).toBe(false);
    expect(SET.pageShape.test("en-US/text/scalc/guide/autofilter.html")).toBe(false);
  });

  it("keeps the Node.js set's rule (the file name) and its default", () => {
    expect(NODE_SET.pageOf("http://127.0.0.1:4000/api/fs.html#x")).toBe("fs.html");
    expect(docsSet("node")).toBe(NODE_SET);
    expect(() => docsSet("python")).toThrow(/unknown set 'python'/);
    expect(docsDir({}, SET)).toBe(SET.defaultDir);
    expect(docsDir({ [SET.env]: "/srv/help" }, SET)).toBe("/srv/help");
  });

  it("rejects a judged page given by file name alone", () => {
    const r = parseQuestions(`{"id":"a-1","kind":"keyword","question":"AutoFilter","relevant":{"autofilter.html":2}}`, SET);
    expect(r.errors).toEqual(["line 1: 'autofilter.html' is not a page of the set"]);
  });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-lo-site-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const files: Record<string, string> = {
    "en-US/text/scalc/01/04060106.html": "<html><head><base href=\"../../../../\"><title>Mathematical Functions</title></head><body>SUM</body></html>",
    "en-US/text/swriter/01/04060106.html": "<html><head><title>Same name, other module</title></head><body>x</body></html>",
    "en-US/text/shared/guide/a_b.intl.html": "<html><head><title>Dots</title></head><body>y</body></html>",
    "en-US/noscript.html": "<html><body>outside the pages</body></html>",
    "default.css": "body{}",
  };
  for (const [f, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
    fs.writeFileSync(path.join(tmp, f), body);
  }

  it("lists the pages under en-US/text recursively, as ids", () => {
    expect(docsPages(tmp, SET)).toEqual(["scalc/01/04060106.html", "shared/guide/a_b.intl.html", "swriter/01/04060106.html"]);
    expect(docsPages(path.join(tmp, "absent"), SET)).toBeNull();
  });

  it("serves every page unmodified, listed in /sitemap.xml, and a home page without links", async () => {
    const pages = docsPages(tmp, SET)!;
    const site = await serveDocs(tmp, pages, SET);
    try {
      expect(site.prefix).toBe("/en-US/text/");
      const home = await (await fetch(site.start)).text();
      expect(home).not.toMatch(/<a /);
      const map = parseSitemap(await (await fetch(new URL("/sitemap.xml", site.start))).text(), site.start);
      expect(map.kind).toBe("urlset");
      expect(map.urls.map((u) => SET.pageOf(u))).toEqual(pages);
      for (const u of map.urls) {
        const res = await fetch(u);
        expect(res.status).toBe(200);
        expect(await res.text()).toBe(files[`en-US/text/${SET.pageOf(u)}`]);
      }
      for (const p of ["/en-US/noscript.html", "/default.css", "/en-US/text/scalc/01/missing.html", "/en-US/text/%E0%A4%A.html"]) {
        expect((await fetch(new URL(p, site.start))).status, p).toBe(404);
      }
    } finally {
      await site.close();
    }
  });
});
