// The documentation question sets: natural-language retrieval on documentation Debian installs,
// the Node.js API HTML docs (issue 16 item 1; the default set) or the LibreOffice help (issue 27
// item 6; --set libreoffice). sets.ts describes each.
//
//   npm run bench:questions -- [--set node|libreoffice] [--keep DIR] [--modes lexical,vector,hybrid | --lexical-only] [--adapt [--adapt-kind model]] [--out DIR]
//
// Serves the set's docs directory (node: QUESTIONS_DOCS_DIR, default /usr/share/doc/nodejs/api,
// all.html and index.html left out; libreoffice: QUESTIONS_LIBREOFFICE_DIR, default
// /usr/share/libreoffice/help, the 2,560 pages under en-US/text) on loopback, starts a Quarry
// runtime on a fresh DATA_DIR (or the --keep one, reused when it already holds the same docs),
// crawls the site through POST /crawl, waits until every page is indexed and (when a vector mode
// is asked) embedded, then asks every question of the set through the search API in each mode
// (top 10, one hit per document) and scores page-level nDCG@10 and recall@10 per kind. Progress
// goes to stderr, the Markdown table to stdout; JSON + Markdown reports to --out (default
// bench-results/). Skips, with the reason, when the docs are absent.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { machineInfo, runMain } from "../report.js";
import { docsDir, docsPages, missingPages, readQuestions } from "./questions.js";
import { failedPages, openDocsDeployment, uncrawledPages, type DocsLoadStats } from "./load.js";
import { DOCS_SETS, NODE_SET, docsSet, docsVersion, type DocsSet } from "./sets.js";
import { loadedModel } from "../load-marker.js";
import { adaptAndAsk, adaptationLine, revertAdaptation, type AdaptKind, type AdaptStep } from "./adapt-step.js";
import { DOCS_MODES, TOP_K, renderTable, runQuestions, summarize, type DocsMode, type ModeSummary, type QuestionResult } from "./evaluate.js";

const log = (m: string) => process.stderr.write(`${m}\n`);

const HELP = `Usage: npm run bench:questions -- [options]

Crawls a set's docs into a fresh Quarry deployment through POST /crawl and scores its question
set per kind and mode. Sets:
${Object.values(DOCS_SETS)
  .map((s) => `  ${s.name.padEnd(12)} ${s.title}: ${s.env}, default ${s.defaultDir}; ${s.questions}`)
  .join("\n")}

Options:
  --set <name>        ${Object.keys(DOCS_SETS).join(" or ")} (default ${NODE_SET.name})
  --questions <file>  question file (default: the set's)
  --keep <dir>        keep the loaded DATA_DIR here and reuse it next time (tuning loops)
  --modes <list>      comma-separated modes among lexical, vector, hybrid (default all three)
  --lexical-only      same as --modes lexical (quick loops; report all three modes); the load
                      does not wait for the vectors (a later run on the --keep load does)
  --adapt             then adapt the collection's query model on its own heading -> section
                      pairs (POST /collections/{id}/adapt, apply: true; quarry-static only) and
                      ask the vector modes again: the report holds both passes
  --adapt-kind <k>    queries (default) or model: the whole model, the collection's chunks
                      embedded again with it before the second pass
  --out <dir>         report directory (default bench-results)
  -h, --help          this text
`;

interface Options {
  set: DocsSet;
  questions: string;
  keep: string | null;
  modes: DocsMode[];
  out: string;
  adapt: boolean;
  adaptKind: AdaptKind;
}

function options(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      set: { type: "string", default: NODE_SET.name },
      questions: { type: "string" },
      keep: { type: "string" },
      modes: { type: "string", default: DOCS_MODES.join(",") },
      "lexical-only": { type: "boolean", default: false },
      adapt: { type: "boolean", default: false },
      "adapt-kind": { type: "string", default: "queries" },
      out: { type: "string", default: "bench-results" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return null;
  const modes = (values["lexical-only"] ? "lexical" : values.modes).split(",").map((m) => m.trim());
  const bad = modes.filter((m) => !(DOCS_MODES as readonly string[]).includes(m));
  if (bad.length || modes.length === 0) throw new Error(`--modes: unknown mode ${bad.join(", ")}; use ${DOCS_MODES.join(", ")}`);
  const set = docsSet(values.set);
  const adaptKind = values["adapt-kind"];
  if (adaptKind !== "queries" && adaptKind !== "model") throw new Error(`--adapt-kind: ${adaptKind}; use queries or model`);
  return { set, questions: values.questions ?? set.questions, keep: values.keep ? path.resolve(values.keep) : null, modes: modes as DocsMode[], out: values.out, adapt: values.adapt, adaptKind };
}

interface DocsReport {
  date: string;
  command: string;
  machine: ReturnType<typeof machineInfo>;
  docs: { set: string; dir: string; pages: number; version: string | null };
  questions: { file: string; count: number };
  /** name: the model and its file's version (load-marker.ts loadedModel) */
  model: { profile: string; state: string; name: string };
  load: DocsLoadStats;
  /** pages whose document failed to index: every question judging one of them can miss it */
  failed_pages: { page: string; error: string }[];
  /** pages of the set the crawl never reached (no document) */
  uncrawled_pages: string[];
  top_k: number;
  modes: ModeSummary[];
  /** the same, over the questions none of whose judged pages failed (when some failed) */
  modes_indexed_pages_only: { questions: number; modes: ModeSummary[] } | null;
  results: QuestionResult[];
  /** --adapt: the adaptation's answer and the vector modes after it */
  adaptation: AdaptStep | null;
  total_s: number;
}

function writeReport(r: DocsReport, table: string, outDir: string): { json: string; md: string } {
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = `docs-questions-${r.docs.set === NODE_SET.name ? "" : `${r.docs.set}-`}${r.date.replace(/[:.]/g, "-")}`;
  const json = path.join(outDir, `${stamp}.json`);
  const md = path.join(outDir, `${stamp}.md`);
  fs.writeFileSync(json, JSON.stringify(r, null, 2));
  fs.writeFileSync(md, `# Documentation question set${r.docs.set === NODE_SET.name ? "" : ` (${r.docs.set})`}, ${r.date}\n\n\`${r.command}\` — ${r.docs.pages} pages (${r.docs.version}), ${r.load.chunks} chunks, ${r.model.profile}; load average ${r.machine.load_average.join(", ")}\n\n${table}`);
  return { json, md };
}

async function main(): Promise<number> {
  const o = options(process.argv.slice(2));
  if (!o) {
    process.stdout.write(HELP);
    return 0;
  }
  const t0 = performance.now();
  const { set } = o;
  const dir = docsDir(process.env, set);
  const pages = docsPages(dir, set);
  if (!pages || pages.length === 0) {
    const where = path.join(dir, set.pagesDir);
    log(`skipping the documentation question set (${set.name}): ${where} ${pages ? "holds no .html pages" : "does not exist"} (${set.install}, or set ${set.env})`);
    return 0;
  }
  const questions = readQuestions(o.questions, set);
  const missing = missingPages(questions, pages);
  if (missing.length) throw new Error(`relevant pages absent from ${dir}: ${missing.join(", ")}`);
  log(`${questions.length} questions, ${pages.length} pages in ${dir}`);

  const d = await openDocsDeployment(set, dir, pages, o.keep, o.modes.some((m) => m !== "lexical"), log);
  try {
    await revertAdaptation(d.url, d.key, d.collectionId, d.sourceId, log);
    const summaries: ModeSummary[] = [];
    const results: QuestionResult[] = [];
    for (const mode of o.modes) {
      const s0 = performance.now();
      const rows = await runQuestions(d.url, d.key, d.collectionId, questions, mode, set.pageOf);
      const s = summarize(mode, rows);
      log(`  ${mode.padEnd(8)} nDCG@10 ${s.by_kind.overall.ndcg_at_10.toFixed(4)}  R@10 ${s.by_kind.overall.recall_at_10.toFixed(4)}  (${((performance.now() - s0) / 1000).toFixed(1)} s)`);
      summaries.push(s);
      results.push(...rows);
    }
    const adaptation = o.adapt ? await adaptAndAsk(d, questions, o.modes, set.pageOf, log, o.adaptKind) : null;
    const failed = await failedPages(d);
    const uncrawled = await uncrawledPages(d, pages);
    if (uncrawled.length) log(`${uncrawled.length} pages of the set were not crawled: ${uncrawled.slice(0, 20).join(", ")}${uncrawled.length > 20 ? ", ..." : ""}`);
    const broken = new Set([...failed.map((f) => f.page), ...uncrawled]);
    const intact = new Set(questions.filter((q) => !Object.keys(q.relevant).some((p) => broken.has(p))).map((q) => q.id));
    // the second table only when it leaves a question out (pages nobody judged do not change the scores)
    const subset = intact.size < questions.length ? o.modes.map((m) => summarize(m, results.filter((r) => r.mode === m && intact.has(r.id)))) : null;
    let table = renderTable(summaries);
    if (adaptation) table += `\n${adaptationLine(adaptation.answer)}; after it:\n\n${renderTable(adaptation.modes)}`;
    if (broken.size) {
      if (failed.length) log(`${failed.length} pages failed to index: ${failed.map((f) => f.page).join(", ")}`);
      const what = [
        failed.length ? `${failed.length} of ${pages.length} pages failed to index (${failed.map((f) => f.page).join(", ")})` : "",
        uncrawled.length ? `${uncrawled.length} of ${pages.length} pages were not crawled` : "",
      ].filter(Boolean);
      table += subset
        ? `\n${what.join("; ")}; over the ${intact.size} questions none of whose judged pages failed:\n\n${renderTable(subset)}`
        : `\n${what.join("; ")}; no question judges any of them.\n`;
    }
    const report: DocsReport = {
      date: new Date().toISOString(),
      command: ["npm run bench:questions --", ...process.argv.slice(2)].join(" "),
      machine: machineInfo(),
      docs: { set: set.name, dir, pages: pages.length, version: docsVersion(set, dir, pages) },
      questions: { file: o.questions, count: questions.length },
      model: { profile: d.rt.activeProfile.name, state: d.rt.embedderStatus().state, name: loadedModel(d.rt) },
      load: d.load,
      failed_pages: failed,
      uncrawled_pages: uncrawled,
      top_k: TOP_K,
      modes: summaries,
      modes_indexed_pages_only: subset ? { questions: intact.size, modes: subset } : null,
      results,
      adaptation,
      total_s: (performance.now() - t0) / 1000,
    };
    const files = writeReport(report, table, o.out);
    process.stdout.write(table);
    log(`report: ${files.md} and ${files.json}`);
    return 0;
  } finally {
    await d.close();
  }
}

runMain(main);
