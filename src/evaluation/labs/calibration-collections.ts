// Small collections for the calibration fit (fit-calibration.ts --small): SciFact sub-collections
// of a few sizes, each loaded as its own tenant (BM25 statistics are per tenant), so the shipped
// model also learns from lists as short and IDFs as small as a collection of ten pages gives
// (issue 27 item 5). Each sub-collection holds the relevant documents of a few queries of the split
// and distractors drawn at random (seeded) from the rest of the corpus; its queries are asked in it
// only, so every query has its answer in the collection, as in the full-size fit.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readCorpus, type BeirDocument, type BeirQrels } from "../beir/beir-files.js";
import { Random } from "../../model/random.js";

/** `count` sub-collections of `size` documents. */
export interface SmallPlan {
  size: number;
  count: number;
}

/** One sub-collection written as a BEIR folder. */
export interface SmallSubset {
  name: string;
  dir: string;
  size: number;
  /** its queries (all with their relevant documents inside) */
  queryIds: string[];
}

/** "10x60,30x20" -> 60 collections of 10 documents and 20 of 30. */
export function parseSmallPlans(spec: string): SmallPlan[] {
  return spec.split(",").map((part) => {
    const m = /^(\d+)x(\d+)$/.exec(part.trim());
    if (!m || Number(m[1]) < 2 || Number(m[2]) < 1) throw new Error(`--small: '${part}' is not SIZExCOUNT (e.g. 10x60)`);
    return { size: Number(m[1]), count: Number(m[2]) };
  });
}

/** Queries per sub-collection: one per ten documents, at least one. */
const queriesFor = (size: number) => Math.max(1, Math.floor(size / 10));

/**
 * Writes the sub-collections as BEIR folders under a temporary directory. Queries are taken in a
 * seeded order from `queryIds` (a query whose relevant documents would fill more than half the
 * collection is skipped); distractors are drawn from the documents no chosen query judges.
 */
export async function writeSmallSubsets(
  datasetDir: string,
  split: string,
  plans: SmallPlan[],
  queryIds: readonly string[],
  queries: ReadonlyMap<string, string>,
  qrels: BeirQrels,
  seed = 27,
): Promise<SmallSubset[]> {
  const corpus: BeirDocument[] = [];
  for await (const d of readCorpus(datasetDir)) corpus.push(d);
  const byId = new Map(corpus.map((d) => [d.id, d]));
  const random = new Random(seed);
  const rand = () => random.next();
  const order = [...random.shuffle(queryIds.map((_, i) => i))].map((i) => queryIds[i]!);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-calibration-small-"));
  const out: SmallSubset[] = [];
  let next = 0;
  for (const plan of plans) {
    for (let i = 0; i < plan.count; i++) {
      const chosen: string[] = [];
      const docs = new Set<string>();
      while (chosen.length < queriesFor(plan.size) && next < order.length * 4) {
        const q = order[next++ % order.length]!;
        const rel = [...(qrels.get(q)?.keys() ?? [])].filter((d) => byId.has(d));
        if (rel.length === 0 || docs.size + rel.length > plan.size / 2 || chosen.includes(q)) continue;
        chosen.push(q);
        rel.forEach((d) => docs.add(d));
      }
      const judged = new Set(chosen.flatMap((q) => [...(qrels.get(q)?.keys() ?? [])]));
      while (docs.size < plan.size) {
        const d = corpus[Math.floor(rand() * corpus.length)]!;
        if (!judged.has(d.id)) docs.add(d.id);
      }
      const name = `scifact-small-${plan.size}-${i}`;
      const dir = path.join(root, name);
      writeBeir(dir, split, [...docs].map((id) => byId.get(id)!), chosen, queries, qrels);
      out.push({ name, dir, size: plan.size, queryIds: chosen });
    }
  }
  return out;
}

function writeBeir(dir: string, split: string, docs: BeirDocument[], queryIds: string[], queries: ReadonlyMap<string, string>, qrels: BeirQrels): void {
  fs.mkdirSync(path.join(dir, "qrels"), { recursive: true });
  fs.writeFileSync(path.join(dir, "corpus.jsonl"), docs.map((d) => JSON.stringify({ _id: d.id, title: d.title, text: d.text })).join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "queries.jsonl"), queryIds.map((q) => JSON.stringify({ _id: q, text: queries.get(q) })).join("\n") + "\n");
  const rows = queryIds.flatMap((q) => [...(qrels.get(q) ?? new Map()).entries()].map(([d, s]) => `${q}\t${d}\t${s}`));
  fs.writeFileSync(path.join(dir, "qrels", `${split}.tsv`), ["query-id\tcorpus-id\tscore", ...rows].join("\n") + "\n");
}
