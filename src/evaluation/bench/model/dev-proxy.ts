// npx tsx src/evaluation/bench/model/dev-proxy.ts -- --model FILE[,FILE] [--data DIR] [--queries N]
//   [--gammas 1,0.5,0] [--weights 0.2,0.3,0.4,0.5] [--adaptive 0.3:0.4,0.3:0.5] [--scales 1,2] [--peaks 3,5,8]
// The dev proxy: scores static models on a retrieval task built from the dev split of the training
// pairs (src/model/dev-split.ts, never trained on), so that settings of the model and of its fusion
// with BM25 are chosen without reading an evaluation set (issue 27 forbids tuning on them). Two
// sets: the pairs as mined (a query and the section it heads, words shared as in SciFact) and
// the same with half of its query's words removed from each passage (questions that do not repeat
// the page's words, as the docs sets' plain questions are written). For each model, identity
// scale (gamma times the factor) and vector weight it prints vector and hybrid nDCG@10; with
// --adaptive, also the query-adaptive fusion (coverage.ts) for each `full:none` pair
// of vector weights and each coverage scale (coverage = best score / (scale x full-match score)),
// and with --peaks by the best hit's z-score in its list over each peak (coverage.ts peakOf).
// Each adaptive row gives its mean vector weight, to compare with that weight fixed for every query.
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { parseArgs } from "node:util";
import { readModel } from "../../../model/artifact.js";
import { StaticEncoder } from "../../../model/encoder.js";
import { distinctQueryTokens, isDevPair } from "../../../model/dev-split.js";
import { modelTokens } from "../../../model/tokenizer.js";
import { peakOf, vectorWeightAt } from "./coverage.js";
import { lexicalRuns, scoreLists, vectorLists, type QueryFusion } from "./evaluate.js";
import type { EvalSet } from "./sets.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: path.join("model", "quarry-static-v1.qsm") },
    data: { type: "string", default: path.join("data", "model") },
    queries: { type: "string", default: "1500" },
    gammas: { type: "string", default: "1" },
    weights: { type: "string", default: "0.3" },
    normalizations: { type: "string", default: "zscore" },
    adaptive: { type: "string", default: "" },
    scales: { type: "string", default: "1" },
    peaks: { type: "string", default: "" },
  },
});

interface DevPair {
  q: string;
  p: string;
}

async function readDevPairs(file: string): Promise<DevPair[]> {
  const out: DevPair[] = [];
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    const pair = JSON.parse(line) as { s: string; q: string; p: string };
    if (isDevPair(pair.s, distinctQueryTokens(pair.q))) out.push({ q: pair.q, p: pair.p });
  }
  return out;
}

/**
 * The passage without the words that carry every other token of the query (the first, third, ...
 * distinct token): half the query's words are gone from the answer, half remain for BM25, as in a
 * question that paraphrases its page.
 */
function masked(passage: string, query: string): string {
  const q = new Set(distinctQueryTokens(query).filter((_, i) => i % 2 === 0));
  return passage.replace(/[\p{L}\p{N}\p{M}_]+/gu, (w) => (modelTokens(w).some((t) => q.has(t)) ? "" : w));
}

/** Passages deduplicated by text; every query judged against its own passage's text. */
function devSet(name: string, pairs: DevPair[], nQueries: number, mask: boolean): EvalSet {
  const idOf = new Map<string, number>();
  const passages: EvalSet["passages"] = [];
  const queries: EvalSet["queries"] = [];
  pairs.forEach((pair, i) => {
    const text = mask ? masked(pair.p, pair.q) : pair.p;
    let id = idOf.get(text);
    if (id === undefined) {
      idOf.set(text, (id = passages.length));
      passages.push({ doc: String(id), title: "", headings: [], body: text });
    }
    if (i < nQueries) queries.push({ text: pair.q, relevant: new Map([[String(id), 1]]), group: name });
  });
  return { name, passages, queries };
}

const pairs = await readDevPairs(path.join(values.data, "pairs.jsonl"));
const n = Number(values.queries);
const sets = [devSet("dev", pairs, n, false), devSet("dev-masked", pairs, n, true)];
const runs = sets.map((s) => lexicalRuns(s));
const lists = runs.map((r) => r.lists);
process.stderr.write(`${pairs.length} dev pairs; ${sets.map((s) => `${s.name}: ${s.passages.length} passages, ${s.queries.length} queries`).join("; ")}\n`);
const quartiles = (xs: number[]) => [0.25, 0.5, 0.75].map((q) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!.toFixed(3)).join(" / ");
sets.forEach((s, i) => process.stderr.write(`${s.name} lexical coverage quartiles ${quartiles(runs[i]!.coverage)}, share at 1: ${(runs[i]!.coverage.filter((c) => c >= 1).length / s.queries.length).toFixed(3)}\n`));

/**
 * An adaptive fusion's mean vector weight over the queries with a lexical list (without one the
 * weight changes nothing): the fixed weight to compare it with, to tell whether adapting beats
 * giving every query the same weight.
 */
function meanOver(set: number, weightOf: (set: number, q: number) => number): number {
  const live = runs[set]!.lists.map((l, q) => (l.length > 0 ? q : -1)).filter((q) => q >= 0);
  return live.reduce((a, q) => a + weightOf(set, q), 0) / Math.max(1, live.length);
}

/** Each fusion to score: the fixed weights, then each adaptive pair at each scale and each peak. */
function fusions(normalization: "zscore" | "minmax"): { label: string; fusion: (set: number) => QueryFusion; meanWeight: (set: number) => number }[] {
  const fixed = values.weights.split(",").map(Number).map((w) => ({ label: String(w), fusion: () => ({ lexicalWeight: 1 - w, vectorWeight: w, normalization }), meanWeight: () => w }));
  const pairs = values.adaptive ? values.adaptive.split(",").map((p) => p.split(":").map(Number) as [number, number]) : [];
  const adaptive = pairs.flatMap(([full, none]) =>
    values.scales.split(",").map(Number).map((scale) => {
      const weightOf = (set: number, q: number) => vectorWeightAt({ full, none }, runs[set]!.coverage[q]! / scale);
      return {
        label: `adaptive ${full}:${none} scale ${scale}`,
        fusion: (set: number) => (q: number) => ({ lexicalWeight: 1 - weightOf(set, q), vectorWeight: weightOf(set, q), normalization }),
        meanWeight: (set: number) => meanOver(set, weightOf),
      };
    }),
  );
  const peaks = values.peaks ? values.peaks.split(",").map(Number) : [];
  const byPeak = pairs.flatMap(([strong, weak]) =>
    peaks.map((peak) => {
      // strength min(1, peak z / peak): the coverage weights with z / peak as the coverage
      const weightOf = (set: number, q: number) => vectorWeightAt({ full: strong, none: weak }, peakOf(runs[set]!.lists[q]!) / peak);
      return {
        label: `adaptive ${strong}:${weak} peak ${peak}`,
        fusion: (set: number) => (q: number) => ({ lexicalWeight: 1 - weightOf(set, q), vectorWeight: weightOf(set, q), normalization }),
        meanWeight: (set: number) => meanOver(set, weightOf),
      };
    }),
  );
  return [...fixed, ...adaptive, ...byPeak];
}
const rows: Record<string, unknown>[] = [];
for (const file of values.model.split(",")) {
  const { parts } = readModel(file);
  for (const g of values.gammas.split(",").map(Number)) {
    const encoder = new StaticEncoder({ ...parts, params: { ...parts.params, gamma: parts.params.gamma * g } });
    const model = { dimension: encoder.dimension, embed: (t: string) => encoder.embed(t) };
    const vectors = sets.map((s) => vectorLists(s, model));
    for (const normalization of values.normalizations.split(",") as ("zscore" | "minmax")[]) {
      for (const f of fusions(normalization)) {
        const row: Record<string, unknown> = { model: path.basename(file), gamma: g, normalization, vector_weight: f.label };
        sets.forEach((s, i) => {
          const r = scoreLists(s, lists[i]!, vectors[i]!, f.fusion(i));
          row[`${s.name}_lexical`] = r.lexical.ndcg10;
          row[`${s.name}_vector`] = r.vector.ndcg10;
          row[`${s.name}_hybrid`] = r.hybrid.ndcg10;
          row[`${s.name}_mean_vector_weight`] = f.meanWeight(i);
        });
        rows.push(row);
        process.stderr.write(`${Object.entries(row).map(([k, v]) => `${k} ${typeof v === "number" ? v.toFixed(4) : v}`).join("  ")}\n`);
      }
    }
  }
}
process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
