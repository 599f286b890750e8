// The documentation question sets (issue 16 item 1, issue 27 item 6): one JSON object per line,
// judged at page level against a set's docs (sets.ts: the Node.js API docs of Debian's nodejs
// package, the LibreOffice help of libreoffice-help-en-us, PostgreSQL's HTML documentation). Shared by the bench (main.ts) and the
// tests that check the files' shape. Without a set argument the functions mean the Node.js set.
import fs from "node:fs";
import path from "node:path";
import { NODE_SET, type DocsSet } from "./sets.js";

export const QUESTION_KINDS = ["keyword", "natural", "howto", "conceptual"] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** the kinds issue 27 calls plain-language: asked in a user's words, not the docs' */
export const PLAIN_KINDS: readonly QuestionKind[] = ["natural", "howto"];
export const isPlainQuestion = (q: Pick<DocsQuestion, "kind">): boolean => PLAIN_KINDS.includes(q.kind);

export const KIND_LABELS: Record<QuestionKind, string> = {
  keyword: "keyword",
  natural: "natural question",
  howto: "how-to",
  conceptual: "conceptual",
};

export interface DocsQuestion {
  id: string;
  kind: QuestionKind;
  question: string;
  /** page id (`fs.html`, `scalc/guide/autofilter.html`) -> grade: 2 the page that answers it, 1 a page that helps */
  relevant: Record<string, 1 | 2>;
}

export const DEFAULT_DOCS_DIR = NODE_SET.defaultDir;
/** The Node.js set leaves these out: the single-page copy of everything and the table of contents. */
export const EXCLUDED_PAGES = NODE_SET.excluded;

/** Where a set's docs are: its environment variable (QUESTIONS_DOCS_DIR for Node.js), else Debian's location. */
export function docsDir(env: NodeJS.ProcessEnv = process.env, set: DocsSet = NODE_SET): string {
  return env[set.env]?.trim() || set.defaultDir;
}

/** The pages of the set (sorted page ids), or null when the docs directory does not exist. */
export function docsPages(dir: string, set: DocsSet = NODE_SET): string[] | null {
  const root = path.join(dir, set.pagesDir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) return null;
  const entries = fs.readdirSync(root, { recursive: set.recursive, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory() && e.name.endsWith(".html"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .filter((p) => !set.excluded.has(p))
    .sort();
}

/** The page a hit belongs to in the Node.js set: the file name of its document URL (`http://x/api/fs.html#y` -> `fs.html`). */
export const pageOf = NODE_SET.pageOf;

function checkLine(value: unknown, where: string, set: DocsSet): { question: DocsQuestion | null; errors: string[] } {
  const errors: string[] = [];
  const o = value as Partial<DocsQuestion> | null;
  if (!o || typeof o !== "object" || Array.isArray(o)) return { question: null, errors: [`${where}: not a JSON object`] };
  const extra = Object.keys(o).filter((k) => !["id", "kind", "question", "relevant"].includes(k));
  if (extra.length) errors.push(`${where}: unknown fields ${extra.join(", ")}`);
  if (typeof o.id !== "string" || !/^[a-z0-9-]+$/.test(o.id)) errors.push(`${where}: id must be a lower-case slug`);
  if (!QUESTION_KINDS.includes(o.kind as QuestionKind)) errors.push(`${where}: kind must be one of ${QUESTION_KINDS.join(", ")}`);
  if (typeof o.question !== "string" || o.question.trim().length < 3) errors.push(`${where}: question must be a non-empty string`);
  const rel = o.relevant;
  if (!rel || typeof rel !== "object" || Array.isArray(rel) || Object.keys(rel).length === 0) {
    errors.push(`${where}: relevant must map at least one page to a grade`);
  } else {
    for (const [page, grade] of Object.entries(rel)) {
      if (!set.pageShape.test(page) || set.excluded.has(page)) errors.push(`${where}: '${page}' is not a page of the set`);
      if (grade !== 1 && grade !== 2) errors.push(`${where}: grade of ${page} must be 1 or 2`);
    }
    if (!Object.values(rel).includes(2)) errors.push(`${where}: at least one page must have grade 2 (the page that answers it)`);
  }
  return { question: errors.length ? null : (o as DocsQuestion), errors };
}

/** Parses the JSONL text; every problem is reported (line numbers 1-based), duplicates included. */
export function parseQuestions(text: string, set: DocsSet = NODE_SET): { questions: DocsQuestion[]; errors: string[] } {
  const questions: DocsQuestion[] = [];
  const errors: string[] = [];
  const ids = new Set<string>();
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      errors.push(`line ${i + 1}: ${(err as Error).message}`);
      return;
    }
    const r = checkLine(value, `line ${i + 1}`, set);
    errors.push(...r.errors);
    if (!r.question) return;
    if (ids.has(r.question.id)) errors.push(`line ${i + 1}: duplicate id ${r.question.id}`);
    ids.add(r.question.id);
    questions.push(r.question);
  });
  return { questions, errors };
}

/** Questions asked twice in a set (case and surrounding space ignored), by id. */
export function repeatedQuestions(questions: DocsQuestion[]): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const q of questions) {
    const text = q.question.trim().toLowerCase();
    const first = seen.get(text);
    if (first) out.push(`${q.id} repeats ${first}`);
    else seen.set(text, q.id);
  }
  return out;
}

export function readQuestions(file: string, set: DocsSet = NODE_SET): DocsQuestion[] {
  const { questions, errors } = parseQuestions(fs.readFileSync(file, "utf8"), set);
  if (errors.length) throw new Error(`${file}:\n  ${errors.join("\n  ")}`);
  return questions;
}

/** Relevant pages that are not in the docs directory (a typo, or a page of another release of the docs). */
export function missingPages(questions: DocsQuestion[], pages: string[]): string[] {
  const have = new Set(pages);
  const out: string[] = [];
  for (const q of questions) for (const p of Object.keys(q.relevant)) if (!have.has(p)) out.push(`${q.id}: ${p}`);
  return out;
}
