// The evaluation sets of the embedding model, held in memory: passages as the service would embed
// them (title and heading path on a line, then the chunk), queries with graded judgments per
// document. SciFact is judged by abstract, the documentation sets by page. Parsing a docs site
// takes a while, so its passages are cached as JSON beside the reports.
import fs from "node:fs";
import path from "node:path";
import { readCorpus, readQrels, readQueries } from "../../beir/beir-files.js";
import { beirParsed } from "../../beir/beir-load.js";
import { parseHtml } from "../../../ingest/parse/html.js";
import { isParseError } from "../../../ingest/parse/errors.js";
import { chunkDocument } from "../../../ingest/chunk.js";
import { passageText } from "../../../services/ingest/ingest-index.js";
import { docsDir, docsPages, readQuestions } from "../docs-questions/questions.js";
import { DOCS_SETS, type DocsSet } from "../docs-questions/sets.js";
import { beirDataDir } from "../../benchmarks/industry-benchmarks.js";

export interface EvalPassage {
  /** the judged unit: a BEIR document id or a page */
  doc: string;
  title: string;
  headings: string[];
  body: string;
}

/** What the model embeds for a passage: the service's passage text (title › headings, then the chunk). */
export const embeddedText = (p: EvalPassage): string => passageText(p.title, p.headings, p.body);

export interface EvalQuery {
  text: string;
  relevant: Map<string, number>;
  /** the question's kind (docs sets) or the split (SciFact) */
  group: string;
}

export interface EvalSet {
  name: string;
  passages: EvalPassage[];
  queries: EvalQuery[];
}

/**
 * SciFact (BEIR directory) with the queries of one qrels split; each abstract parsed and chunked
 * as the service ingests it (npm run bench: 6,082 chunks). One passage per whole abstract read the
 * model differently from the service (vector-only 0.249 against 0.500 for the model of 2026-11-28).
 */
export async function scifactSet(dir: string, split: string): Promise<EvalSet> {
  const passages: EvalPassage[] = [];
  for await (const d of readCorpus(dir)) {
    const parsed = beirParsed(d);
    for (const c of chunkDocument(parsed, CHUNKING)) passages.push({ doc: d.id, title: parsed.title, headings: c.headingPath, body: c.text });
  }
  const texts = await readQueries(dir);
  const queries: EvalQuery[] = [];
  for (const [qid, relevant] of await readQrels(dir, split)) {
    const text = texts.get(qid);
    if (text?.trim()) queries.push({ text, relevant, group: split });
  }
  return { name: `scifact-${split}`, passages, queries };
}

/** The profile's chunk sizes: the default profile's, so passages match what the service indexes. */
const CHUNKING = { chunkSizeTokens: 400, chunkOverlapTokens: 40 };

/** Parses and chunks every page of a docs set (cached in `cacheFile` when given). */
export function docsPassages(root: string, pages: string[], cacheFile?: string): EvalPassage[] {
  if (cacheFile && fs.existsSync(cacheFile)) return JSON.parse(fs.readFileSync(cacheFile, "utf8")) as EvalPassage[];
  const passages: EvalPassage[] = [];
  for (const page of pages) {
    let doc;
    try {
      doc = parseHtml(fs.readFileSync(path.join(root, page)), path.basename(page));
    } catch (err) {
      if (isParseError(err)) continue; // pages without text (screenshots): the service indexes nothing either
      throw err;
    }
    for (const c of chunkDocument(doc, CHUNKING)) passages.push({ doc: page, title: doc.title, headings: c.headingPath, body: c.text });
  }
  if (cacheFile) {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    fs.writeFileSync(cacheFile, JSON.stringify(passages));
  }
  return passages;
}

/** A documentation question set over its docs (where its environment variable or default says), judged by page; null when the docs are absent. */
export function docsSet(set: DocsSet, cacheDir?: string): EvalSet | null {
  const dir = docsDir(process.env, set);
  const pages = docsPages(dir, set);
  if (!pages) return null;
  const passages = docsPassages(path.join(dir, set.pagesDir), pages, cacheDir ? path.join(cacheDir, `${set.name}-passages.json`) : undefined);
  const queries = readQuestions(set.questions, set).map((q) => ({ text: q.question, relevant: new Map(Object.entries(q.relevant)), group: q.kind }));
  return { name: set.name, passages, queries };
}

/**
 * An evaluation set by name (scifact, or a docs set of DOCS_SETS), null with the reason logged
 * when its data is absent: SciFact from BEIR_DATA_DIR, the docs from their packages.
 */
export async function loadEvalSet(name: string, cacheDir: string, log: (m: string) => void): Promise<EvalSet | null> {
  if (name === "scifact") {
    const dir = path.join(beirDataDir(process.env.BEIR_DATA_DIR, process.env.DATA_DIR ?? "data"), "scifact");
    if (!fs.existsSync(path.join(dir, "corpus.jsonl"))) return log(`scifact skipped: no BEIR data at ${dir} (BEIR_DATA_DIR)`), null;
    return scifactSet(dir, "test");
  }
  const docs = DOCS_SETS[name];
  if (!docs) throw new Error(`unknown set ${name}; use scifact, ${Object.keys(DOCS_SETS).join(", ")}`);
  const set = docsSet(docs, cacheDir);
  if (!set) log(`${name} skipped: the docs are absent (${docs.env}; ${docs.install})`);
  return set;
}
