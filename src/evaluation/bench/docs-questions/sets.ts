// The documentation question sets: which docs each one is judged against, where they are, how the
// loopback site serves them and how a hit's URL becomes the page id its judgments use.
//
// - node: the Node.js API reference of Debian's nodejs package (issue 16 item 1), 63 flat pages,
//   judged by file name (`fs.html`); the site's home page links every page.
// - libreoffice: the LibreOffice help of Debian's libreoffice-help-en-us (issue 27 item 6),
//   2,560 pages in nine module folders whose file names repeat across modules, so a page is judged
//   by its path under en-US/text (`scalc/guide/autofilter.html`). The pages' own links reach 2,251
//   of them at best (their navigation is built by JavaScript), so the site lists every page in
//   /sitemap.xml and its home page links none (a page of 2,560 links would pass the crawler's
//   per-page link cap and its per-URL-shape cap, and a link it skips is not taken again from the
//   sitemap).
// - postgres: PostgreSQL 15's HTML documentation of Debian's postgresql-doc-15 (2026-11-29), 1,173
//   flat pages judged by file name (`sql-copy.html`); a set for confirming a choice made on the
//   other two, written before any run read it. Its pages are never training data (the miner
//   refuses postgresql* packages). Served with a sitemap as the LibreOffice help is: the home
//   page's table of contents reaches the chapters, not every page.
import fs from "node:fs";
import path from "node:path";

export interface DocsSet {
  name: string;
  /** what the docs are: the collection's name and the reports' */
  title: string;
  /** the question file, relative to the repository root */
  questions: string;
  /** the environment variable that moves the docs, and their default location (Debian's) */
  env: string;
  defaultDir: string;
  /** where the pages are under the docs directory ("" for the directory itself) */
  pagesDir: string;
  /** the URL path the site serves pagesDir under; a page's id is its URL path after it */
  mount: string;
  /** true: pages in subfolders too (ids with slashes) */
  recursive: boolean;
  /** page ids the set leaves out */
  excluded: ReadonlySet<string>;
  /** the shape of a page id in a question file */
  pageShape: RegExp;
  /** true: the site serves /sitemap.xml listing every page and a home page without links */
  sitemap: boolean;
  /** the crawl's max_depth */
  maxDepth: number;
  /** how to get the docs, for the skip message */
  install: string;
  /** the page id of a hit's document URL */
  pageOf(source: string): string;
  /** which release of the docs a directory holds: the first group of `pattern` on `page` (or the first page when it is absent) */
  versionFrom: { page: string; pattern: RegExp };
}

function urlPath(source: string): string {
  try {
    return decodeURIComponent(new URL(source).pathname);
  } catch {
    return source;
  }
}

/** The Node.js set's rule: the file name of the document URL (`http://x/api/fs.html#y` -> `fs.html`). */
export function basenamePage(source: string): string {
  return path.posix.basename(urlPath(source));
}

/** A mounted set's rule: the URL path after the mount (`/en-US/text/scalc/01/x.html` -> `scalc/01/x.html`). */
export function mountedPage(mount: string, source: string): string {
  const p = urlPath(source);
  return p.startsWith(mount) ? p.slice(mount.length) : p.replace(/^\/+/, "");
}

/** Which release of the docs `dir` holds, when its page says (the reports' docs.version). */
export function docsVersion(set: DocsSet, dir: string, pages: string[]): string | null {
  const { page, pattern } = set.versionFrom;
  const html = fs.readFileSync(path.join(dir, set.pagesDir, pages.includes(page) ? page : pages[0]!), "utf8");
  return pattern.exec(html)?.[1] ?? null;
}

export const NODE_SET: DocsSet = {
  name: "node",
  title: "Node.js API docs",
  questions: "src/evaluation/question-sets/node-api.jsonl",
  env: "QUESTIONS_DOCS_DIR",
  defaultDir: "/usr/share/doc/nodejs/api",
  pagesDir: "",
  mount: "/api/",
  recursive: false,
  // the single-page copy of everything and the table of contents
  excluded: new Set(["all.html", "index.html"]),
  pageShape: /^[a-z0-9_-]+\.html$/,
  sitemap: false,
  maxDepth: 2,
  install: "install Debian's nodejs package",
  pageOf: basenamePage,
  versionFrom: { page: "fs.html", pattern: /Node\.js (v\d+\.\d+\.\d+)/ },
};

const LO_MOUNT = "/en-US/text/";

export const LIBREOFFICE_SET: DocsSet = {
  name: "libreoffice",
  title: "LibreOffice Help",
  questions: "src/evaluation/question-sets/libreoffice-help.jsonl",
  env: "QUESTIONS_LIBREOFFICE_DIR",
  // the help root: pages carry <base href="../../../../">, so they resolve from here
  defaultDir: "/usr/share/libreoffice/help",
  pagesDir: "en-US/text",
  mount: LO_MOUNT,
  recursive: true,
  excluded: new Set(),
  pageShape: /^(shared|scalc|swriter|simpress|sdraw|sbasic|sdatabase|schart|smath)(\/[A-Za-z0-9_.-]+)+\.html$/,
  sitemap: true,
  maxDepth: 1,
  install: "install Debian's libreoffice-help-en-us package",
  pageOf: (source) => mountedPage(LO_MOUNT, source),
  versionFrom: { page: "shared/05/new_help.html", pattern: /(LibreOffice \d+\.\d+) Help/ },
};

export const POSTGRES_SET: DocsSet = {
  name: "postgres",
  title: "PostgreSQL documentation",
  questions: "src/evaluation/question-sets/postgres-docs.jsonl",
  env: "QUESTIONS_POSTGRES_DIR",
  defaultDir: "/usr/share/doc/postgresql-doc-15/html",
  pagesDir: "",
  mount: "/html/",
  recursive: false,
  // the table of contents and the index of terms (a page of every keyword's links)
  excluded: new Set(["index.html", "bookindex.html"]),
  pageShape: /^[a-z0-9_-]+\.html$/,
  sitemap: true,
  maxDepth: 1,
  install: "install Debian's postgresql-doc-15 package",
  pageOf: basenamePage,
  versionFrom: { page: "index.html", pattern: /(PostgreSQL \d+(\.\d+)?) Documentation/ },
};

export const DOCS_SETS: Record<string, DocsSet> = { node: NODE_SET, libreoffice: LIBREOFFICE_SET, postgres: POSTGRES_SET };

export function docsSet(name: string): DocsSet {
  const set = DOCS_SETS[name];
  if (!set) throw new Error(`--set: unknown set '${name}'; use ${Object.keys(DOCS_SETS).join(", ")}`);
  return set;
}
