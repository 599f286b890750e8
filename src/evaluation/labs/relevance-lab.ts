// Relevance experiments in one process, on kept loads: SciFact (a `npm run bench -- --data-dir DIR`
// load) and the documentation question set (a `npm run bench:questions -- --keep DIR` load). Ranks
// every query with engine.rank under named engine settings and prints nDCG@10 / recall@10 (SciFact
// overall, the docs set per kind). Opens the runtimes without workers, so it never takes jobs.
//
//   npx tsx src/evaluation/labs/relevance-lab.ts --scifact DIR --dataset BEIR_DIR --docs DIR --modes lexical,hybrid --variants base,...
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { loadConfig } from "../../config.js";
import { createRuntime, type Runtime } from "../../runtime.js";
import { DEFAULT_ENGINE_SETTINGS, type EngineSettings, type RetrievalMode } from "../../search/engine.js";
import { evaluateQuery, evaluateRun } from "../ranking-metrics.js";
import { readQrels, readQueries } from "../beir/beir-files.js";
import { settingsFor } from "../../services/search/search.js";
import { cutoffFor, relativeCutoff } from "../../search/calibration.js";
import { calibrationStats } from "../calibration-fit.js";
import { operatorPrincipal } from "../bench/load.js";
import type { BenchmarkSuiteCreate } from "../benchmarks/benchmark-types.js";
import { QUESTION_KINDS, pageOf, readQuestions } from "../bench/docs-questions/questions.js";

const { values } = parseArgs({
  options: {
    scifact: { type: "string" },
    dataset: { type: "string" },
    docs: { type: "string" },
    modes: { type: "string", default: "lexical,hybrid" },
    variants: { type: "string", default: "base" },
    questions: { type: "string", default: "src/evaluation/question-sets/node-api.jsonl" },
    dump: { type: "string" },
    "lex-load": { type: "string" },
    tenant: { type: "string" },
    embed: { type: "string" },
    collection: { type: "string" },
    "tune-train": { type: "string" },
    "tune-questions": { type: "boolean", default: false },
    calibration: { type: "boolean", default: false },
    apply: { type: "boolean", default: false },
  },
});

type Variant = (s: EngineSettings) => EngineSettings;
const VARIANTS: Record<string, Variant> = {
  base: (s) => s,
};
// variants from JSON on the command line: name=JSON merged into the settings' extras
function variant(name: string): Variant {
  if (VARIANTS[name]) return VARIANTS[name]!;
  const eq = name.indexOf("=");
  if (eq > 0) {
    const patch = JSON.parse(name.slice(eq + 1));
    return (s) => deepMerge(s, patch);
  }
  throw new Error(`unknown variant ${name}`);
}
function deepMerge<T>(a: T, b: any): T {
  if (b === null || typeof b !== "object" || Array.isArray(b)) return b;
  const out: any = { ...(a as any) };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge((a as any)?.[k], v);
  return out;
}

async function open(dir: string): Promise<Runtime> {
  const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: "warn", EMBED_WORKERS: "1" });
  const rt = await createRuntime(config, { log: pino({ level: "warn" }), workers: false });
  await rt.embedder?.whenReady();
  return rt;
}

async function topDocs(rt: Runtime, tenant: string, sources: string[], q: string, s: EngineSettings, mode: RetrievalMode, key: (c: any) => string) {
  const r = await rt.engine.rank(tenant, sources, q, s, mode);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const h of r.ranked) {
    if (seen.has(h.chunk.document_id)) continue;
    seen.add(h.chunk.document_id);
    out.push(key(h.chunk));
    if (out.length >= 10) break;
  }
  return out;
}

if (values["lex-load"]) {
  // a lexical-only SciFact load (no vectors) for lexical loops while the full load runs
  const dir = values["lex-load"];
  fs.mkdirSync(dir, { recursive: true });
  const rt = await open(dir);
  const created = await rt.tenants.create({ name: "lab" });
  await rt.tenants.setPlan(created.tenant.id, "enterprise");
  const tenant = (await rt.store.tenants.get(created.tenant.id))!;
  const principal = operatorPrincipal(tenant);
  const job = await rt.industryBenchmarks.importer.start(principal, {
    dir: values.dataset!, split: "test", createSuite: false, embed: false, maxDocuments: null, maxQueries: null, collectionName: "lab",
  });
  const done = await job.done;
  fs.writeFileSync(path.join(dir, "bench-dataset.json"), JSON.stringify({ dataset: values.dataset, tenantId: tenant.id, collectionId: job.started.collection_id }));
  console.log(`loaded ${done.chunks} chunks`);
  await rt.close();
  process.exit(0);
}

if (values.embed) {
  // gives a lexical-only load its vectors: a runtime with workers runs the embedding backfill
  const config = loadConfig({ ...process.env, DATA_DIR: values.embed, LOG_LEVEL: "warn" });
  const rt = await createRuntime(config, { log: pino({ level: "warn" }) });
  await rt.embedder?.whenReady();
  const index = rt.activeProfile.index_name!;
  const t0 = performance.now();
  for (;;) {
    const left = await rt.store.content.countUnembedded(index);
    console.log(`${((performance.now() - t0) / 1000).toFixed(0)} s: ${left} chunks without vectors`);
    if (left === 0) break;
    await new Promise((r) => setTimeout(r, 15_000));
  }
  await rt.close();
  process.exit(0);
}

/**
 * POST /benchmarks/{id}/tune as a job on a suite of the load's collection, timed and printed; with
 * --apply the collection keeps the best setting, so a following run measures it.
 */
async function tuneSuite(dir: string, marker: { tenantId: string; collectionId: string }, name: string, cases: (rows: { source: string; id: string }[]) => BenchmarkSuiteCreate["cases"]) {
  const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: "warn" });
  const rt = await createRuntime(config, { log: pino({ level: "warn" }) });
  await rt.embedder?.whenReady();
  const tenant = (await rt.store.tenants.get(marker.tenantId))!;
  const principal = operatorPrincipal(tenant);
  const docs = await rt.store.content.listDocuments(tenant.id, { collectionId: marker.collectionId, limit: 100_000 });
  const suite = await rt.benchmarks.create(principal, { name, collection_id: marker.collectionId, cases: cases(docs) });
  const t0 = performance.now();
  const answer = await rt.benchmarks.tune(principal, suite.id, { background: true, apply: values.apply });
  if (!answer.background) throw new Error("expected a job");
  let last = "";
  for (;;) {
    const t = await rt.benchmarks.tuning(principal, suite.id, answer.job.id);
    const line = `${((performance.now() - t0) / 1000).toFixed(0)} s ${t.status} ${t.progress.phase} ${t.progress.cases_done}/${t.progress.cases_total}`;
    if (line !== last) console.log((last = line));
    if (!["queued", "running"].includes(t.status)) {
      const { split: _split, ...rest } = (t.result ?? {}) as Record<string, unknown>;
      console.log(JSON.stringify(t.result ? rest : t.error, null, 1));
      break;
    }
    await new Promise((r) => setTimeout(r, 2_000));
  }
  await rt.close();
}

if (values["tune-train"] && values.scifact) {
  // a suite of the first N SciFact *train* queries: a following --scifact run measures the test queries it never saw
  const dir = values.scifact;
  const marker = JSON.parse(fs.readFileSync(path.join(dir, "bench-dataset.json"), "utf8"));
  const dataset = values.dataset ?? marker.dataset;
  const [qrels, queries] = await Promise.all([readQrels(dataset, "train"), readQueries(dataset)]);
  const ids = [...qrels.keys()].filter((q) => queries.get(q)?.trim()).slice(0, Number(values["tune-train"]));
  await tuneSuite(dir, marker, `scifact train ${ids.length}`, (docs) => {
    const idOf = new Map(docs.map((d) => [d.source, d.id]));
    return ids.map((q) => ({ query: queries.get(q)!, relevant_document_ids: [...qrels.get(q)!.keys()].flatMap((d) => idOf.get(d) ?? []) }));
  });
  process.exit(0);
}

if (values["tune-questions"] && values.docs) {
  // a suite of the question set's questions (a page of grade 1 or 2 is relevant): the tuner's own held-out split is the only guard here
  const dir = values.docs;
  const marker = JSON.parse(fs.readFileSync(path.join(dir, "docs-questions.json"), "utf8"));
  const questions = readQuestions(values.questions!);
  await tuneSuite(dir, marker, "docs questions", (docs) =>
    questions.map((q) => ({ query: q.question, relevant_document_ids: docs.filter((d) => pageOf(d.source) in q.relevant).map((d) => d.id) })),
  );
  process.exit(0);
}

const modes = values.modes!.split(",") as RetrievalMode[];
const variants = values.variants!.split(";");
const dump: any = {};

if (values.scifact) {
  const marker = JSON.parse(fs.readFileSync(path.join(values.scifact, "bench-dataset.json"), "utf8"));
  const dataset = values.dataset ?? marker.dataset;
  const rt = await open(values.scifact);
  const c = await rt.store.content.getCollection(marker.tenantId, marker.collectionId);
  const base = settingsFor(DEFAULT_ENGINE_SETTINGS, c!.settings ?? {});
  const [qrels, queries] = await Promise.all([readQrels(dataset, "test"), readQueries(dataset)]);
  const ids = [...qrels.keys()].filter((q) => queries.get(q)?.trim());
  for (const v of variants) {
    const s = variant(v)(base);
    for (const mode of modes) {
      const t0 = performance.now();
      const run = new Map<string, string[]>();
      for (const q of ids) run.set(q, await topDocs(rt, marker.tenantId, c!.data_source_ids, queries.get(q)!, s, mode, (x) => x.source));
      const m = evaluateRun(run, qrels, 10);
      dump[`scifact|${v}|${mode}`] = Object.fromEntries(ids.map((q) => [q, evaluateQuery(run.get(q)!, qrels.get(q)!, 10).ndcg]));
      console.log(`scifact ${mode.padEnd(7)} ${v.slice(0, 90).padEnd(40)} nDCG@10 ${m.ndcg.toFixed(4)} R@10 ${m.recall.toFixed(4)} MRR ${m.mrr.toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
  }
  await rt.close();
}

/** Questions the Node.js documentation does not answer: /retrieve should keep at most one context for each. */
const OFF_TOPIC = ["recipe for chocolate cake", "best hiking trails in Colorado", "how do I tie a tie", "who won the world cup in 1998", "symptoms of the flu in children", "cheap flights to Lisbon", "how to repot an orchid", "what is the capital of Australia"];

/**
 * --calibration: how well the hybrid `score` of a setting matches the questions' page judgments.
 * The first 20 hits of each question, relevant when their page is judged (grade 1 or 2): Brier
 * score, expected calibration error (10 bins), mean score / share relevant at ranks 1, 5 and 10,
 * and the contexts the /retrieve cutoff keeps of each question's best 8 documents, on the
 * questions and on OFF_TOPIC.
 */
async function calibrationLine(rt: Runtime, tenantId: string, sources: string[], s: EngineSettings, questions: ReturnType<typeof readQuestions>) {
  const rows: { p: number; y: number; rank: number }[] = [];
  const kept = async (q: string, judge?: (source: string) => number) => {
    const r = await rt.engine.rank(tenantId, sources, q, s, "hybrid");
    r.ranked.slice(0, 20).forEach((h, rank) => judge && rows.push({ p: h.score, y: judge(h.chunk.source), rank }));
    const best = new Map<string, { score: number }>();
    for (const h of r.ranked) if (!best.has(h.chunk.document_id)) best.set(h.chunk.document_id, { score: h.score });
    return relativeCutoff([...best.values()].slice(0, 8), cutoffFor(s.calibration, r.mode)).length;
  };
  const onTopic: number[] = [];
  for (const q of questions) onTopic.push(await kept(q.question, (source) => (pageOf(source) in q.relevant ? 1 : 0)));
  const offTopic: number[] = [];
  for (const q of OFF_TOPIC) offTopic.push(await kept(q));
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
  const { brier, ece } = calibrationStats(
    rows.map((r) => r.p),
    rows.map((r) => r.y),
  );
  const at = (k: number) => {
    const x = rows.filter((r) => r.rank === k - 1);
    return `rank ${k} ${mean(x.map((r) => r.p)).toFixed(3)} / ${mean(x.map((r) => r.y)).toFixed(2)}`;
  };
  return `Brier ${brier.toFixed(3)}  ECE ${ece.toFixed(3)}  score / share relevant: ${[1, 5, 10].map(at).join(", ")}  contexts kept ${mean(onTopic).toFixed(2)}, off-topic ${offTopic.join(",")}`;
}

if (values.docs) {
  const mf = path.join(values.docs, "docs-questions.json");
  // while the load is still embedding there is no marker yet: the only collection of the dir
  const marker = fs.existsSync(mf) ? JSON.parse(fs.readFileSync(mf, "utf8")) : { tenantId: values.tenant, collectionId: values.collection };
  const rt = await open(values.docs);
  const c = await rt.store.content.getCollection(marker.tenantId, marker.collectionId);
  const base = settingsFor(DEFAULT_ENGINE_SETTINGS, c!.settings ?? {});
  const questions = readQuestions(values.questions!);
  if (values.calibration) {
    for (const v of variants) console.log(`calibration ${v.split("=")[0]!.padEnd(12)} ${await calibrationLine(rt, marker.tenantId, c!.data_source_ids, variant(v)(base), questions)}`);
    await rt.close();
    process.exit(0);
  }
  const table: { label: string; per: Record<string, number[]>; rec: Record<string, number[]> }[] = [];
  for (const v of variants) {
    const s = variant(v)(base);
    for (const mode of modes) {
      const per: Record<string, number[]> = {};
      const rec: Record<string, number[]> = {};
      const d: any = {};
      for (const q of questions) {
        const pages = await topDocs(rt, marker.tenantId, c!.data_source_ids, q.question, s, mode, (x) => pageOf(x.source));
        const m = evaluateQuery(pages, new Map(Object.entries(q.relevant)), 10);
        (per[q.kind] ??= []).push(m.ndcg);
        (rec[q.kind] ??= []).push(m.recall);
        d[q.id] = { ndcg: m.ndcg, pages: pages.slice(0, 5) };
      }
      dump[`docs|${v}|${mode}`] = d;
      table.push({ label: `${v.split("=")[0]} ${mode}`, per, rec });
      const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
      const all = Object.values(per).flat();
      const cells = QUESTION_KINDS.map((k) => `${k.slice(0, 4)} ${mean(per[k]!).toFixed(3)}/${mean(rec[k]!).toFixed(3)}`);
      console.log(`docs    ${mode.padEnd(7)} ${v.slice(0, 90).padEnd(40)} ${cells.join("  ")}  all ${mean(all).toFixed(3)}`);
    }
  }
  // Markdown: kinds as rows, nDCG@10 and R@10 of each variant and mode as columns
  const mean = (a: number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : 0);
  const head = ["kind", "questions", ...table.flatMap((t) => [`${t.label} nDCG@10`, `${t.label} R@10`])];
  console.log(`\n| ${head.join(" | ")} |\n| ${head.map((_, i) => (i ? "---:" : "---")).join(" | ")} |`);
  for (const k of [...QUESTION_KINDS, "overall"]) {
    const cells = table.flatMap((t) => {
      const n = k === "overall" ? Object.values(t.per).flat() : t.per[k]!;
      const r = k === "overall" ? Object.values(t.rec).flat() : t.rec[k]!;
      return [mean(n).toFixed(3), mean(r).toFixed(3)];
    });
    const count = k === "overall" ? questions.length : questions.filter((q) => q.kind === k).length;
    console.log(`| ${k} | ${count} | ${cells.join(" | ")} |`);
  }
  await rt.close();
}
if (values.dump) fs.writeFileSync(values.dump, JSON.stringify(dump, null, 1));
