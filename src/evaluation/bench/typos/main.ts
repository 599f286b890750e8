// The typo bench (issue 28 "Targets"): 200 one-edit misspellings of the documentation questions
// (misspell.ts), each asked through POST /search with and without typo tolerance, against the
// correctly spelt question's top page; and every clean question with and without it, for the
// nDCG@10 typo tolerance costs queries that have no typo. Lexical mode by default (typo tolerance
// lives in the keyword half); --mode hybrid asks the deployment's blend.
//
//   npm run bench:typos -- [--set node|libreoffice] [--keep DIR] [--mode lexical|hybrid] [--count 200] [--out DIR]
//
// Loads the set as the question bench does (docs-questions/load.ts; --keep reuses a load).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { evaluateQuery } from "../../ranking-metrics.js";
import { machineInfo, runMain } from "../report.js";
import { docsDir, docsPages, readQuestions, type DocsQuestion } from "../docs-questions/questions.js";
import { openDocsDeployment } from "../docs-questions/load.js";
import { NODE_SET, docsSet, type DocsSet } from "../docs-questions/sets.js";
import { misspell, type Misspelling } from "./misspell.js";

const log = (m: string) => process.stderr.write(`${m}\n`);
const TOP_K = 10;
const SEED = 28;

interface Asker {
  (query: string, typos: boolean): Promise<string[]>;
  /** server took_ms summed per setting */
  took: { on: number; off: number };
}

function asker(url: string, key: string, collectionId: string, mode: "lexical" | "hybrid", pageOf: DocsSet["pageOf"]): Asker {
  const took = { on: 0, off: 0 };
  const ask = async (query: string, typos: boolean) => {
    const json = { collection_id: collectionId, query, top_k: TOP_K, typo_tolerance: typos, ...(mode === "lexical" ? { hybrid: { semantic_ratio: 0 } } : {}) };
    const res = await fetch(`${url}/search`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(json) });
    const body = (await res.json()) as { results?: { source: string }[]; took_ms?: number };
    if (res.status !== 200) throw new Error(`POST /search (${query}): ${res.status} ${JSON.stringify(body)}`);
    took[typos ? "on" : "off"] += body.took_ms ?? 0;
    return (body.results ?? []).map((h) => pageOf(h.source));
  };
  return Object.assign(ask, { took });
}

/** Share of the misspellings whose top page is the clean question's, with and without typo tolerance. */
async function topHitKept(ask: Asker, set: Misspelling[]) {
  const clean = new Map<string, string | undefined>();
  let kept = 0;
  let keptWithout = 0;
  let comparable = 0;
  const misses: Misspelling[] = [];
  for (const m of set) {
    if (!clean.has(m.question)) clean.set(m.question, (await ask(m.question, true))[0]);
    const top = clean.get(m.question);
    if (top === undefined) continue;
    comparable++;
    if ((await ask(m.misspelt, true))[0] === top) kept++;
    else misses.push(m);
    if ((await ask(m.misspelt, false))[0] === top) keptWithout++;
  }
  return { comparable, kept: kept / comparable, kept_without_typos: keptWithout / comparable, misses };
}

async function cleanNdcg(ask: Asker, questions: DocsQuestion[]) {
  let on = 0;
  let off = 0;
  ask.took.on = ask.took.off = 0;
  for (const q of questions) {
    const relevant = new Map(Object.entries(q.relevant));
    on += evaluateQuery(await ask(q.question, true), relevant, TOP_K).ndcg;
    off += evaluateQuery(await ask(q.question, false), relevant, TOP_K).ndcg;
  }
  const n = questions.length;
  return { questions: n, ndcg_typos_on: on / n, ndcg_typos_off: off / n, loss: (off - on) / n, mean_took_ms: { on: ask.took.on / n, off: ask.took.off / n } };
}

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      set: { type: "string", default: NODE_SET.name },
      keep: { type: "string" },
      mode: { type: "string", default: "lexical" },
      count: { type: "string", default: "200" },
      out: { type: "string", default: "bench-results" },
    },
  });
  if (values.mode !== "lexical" && values.mode !== "hybrid") throw new Error("--mode: lexical or hybrid");
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1) throw new Error("--count: a whole number of misspellings, 1 or more");
  return { set: docsSet(values.set), keep: values.keep ? path.resolve(values.keep) : null, mode: values.mode as "lexical" | "hybrid", count, out: values.out };
}

async function main(): Promise<number> {
  const o = options(process.argv.slice(2));
  const dir = docsDir(process.env, o.set);
  const pages = docsPages(dir, o.set);
  if (!pages || pages.length === 0) {
    log(`skipping the typo bench (${o.set.name}): no pages in ${path.join(dir, o.set.pagesDir)} (${o.set.install}, or set ${o.set.env})`);
    return 0;
  }
  const questions = readQuestions(o.set.questions, o.set);
  const d = await openDocsDeployment(o.set, dir, pages, o.keep, o.mode === "hybrid", log);
  try {
    const ask = asker(d.url, d.key, d.collectionId, o.mode, o.set.pageOf);
    const t0 = performance.now();
    const inner = await topHitKept(ask, misspell(questions, o.count, { seed: SEED, firstLetter: false }));
    const anywhere = await topHitKept(ask, misspell(questions, o.count, { seed: SEED, firstLetter: true }));
    const clean = await cleanNdcg(ask, questions);
    const report = {
      date: new Date().toISOString(),
      command: ["npm run bench:typos --", ...process.argv.slice(2)].join(" "),
      machine: machineInfo(),
      set: o.set.name,
      chunks: d.load.chunks,
      mode: o.mode,
      misspellings: { after_first_letter: { ...inner, misses: inner.misses.slice(0, 40) }, any_letter: { ...anywhere, misses: anywhere.misses.slice(0, 40) } },
      clean,
      total_s: (performance.now() - t0) / 1000,
    };
    const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
    const table =
      `| ${o.set.name}, ${o.mode}, ${d.load.chunks} chunks | typo tolerance on | off |\n| --- | --- | --- |\n` +
      `| top page kept, ${inner.comparable} misspellings after the first letter | ${pct(inner.kept)} | ${pct(inner.kept_without_typos)} |\n` +
      `| top page kept, ${anywhere.comparable} misspellings at any letter | ${pct(anywhere.kept)} | ${pct(anywhere.kept_without_typos)} |\n` +
      `| nDCG@10 of the ${clean.questions} clean questions | ${clean.ndcg_typos_on.toFixed(4)} | ${clean.ndcg_typos_off.toFixed(4)} |\n` +
      `| mean took_ms of the clean questions | ${clean.mean_took_ms.on.toFixed(2)} | ${clean.mean_took_ms.off.toFixed(2)} |\n`;
    fs.mkdirSync(o.out, { recursive: true });
    const file = path.join(o.out, `typos-${o.set.name}-${report.date.replace(/[:.]/g, "-")}`);
    fs.writeFileSync(`${file}.json`, JSON.stringify(report, null, 2));
    fs.writeFileSync(`${file}.md`, `# Typo bench, ${report.date}\n\n\`${report.command}\`\n\n${table}`);
    process.stdout.write(table);
    log(`report: ${file}.md and ${file}.json`);
    return 0;
  } finally {
    await d.close();
  }
}

runMain(main);
