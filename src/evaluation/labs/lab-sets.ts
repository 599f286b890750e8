// The two development sets as the relevance labs read them from a kept load: SciFact (a
// `npm run bench -- --data-dir DIR` load, judged by BEIR document id) or the documentation question
// set (a `npm run bench:questions -- --keep DIR` load, judged by page). Shared by
// vector-granularity-lab.ts and feedback-lab.ts.
import fs from "node:fs";
import path from "node:path";
import { readQrels, readQueries } from "../beir/beir-files.js";
import { pageOf, readQuestions } from "../bench/docs-questions/questions.js";

export interface LabQuery {
  text: string;
  relevant: Map<string, number>;
  /** SciFact: the split; docs: the question's kind */
  group: string;
}

export interface LabSet {
  /** the load's tenant and collection */
  marker: { tenantId: string; collectionId: string; dataset?: string };
  /** what a chunk's document source is judged as: a BEIR document id, or a page */
  keyOf: (source: string) => string;
  queries: LabQuery[];
}

/** The set's queries (SciFact: those of `splits`, in that order) and how its documents are judged. */
export async function labSet(o: { dir: string; set: "scifact" | "docs"; dataset?: string; questions: string; splits?: string[] }): Promise<LabSet> {
  if (o.set === "docs") {
    const marker = JSON.parse(fs.readFileSync(path.join(o.dir, "docs-questions.json"), "utf8"));
    const queries = readQuestions(o.questions).map((q) => ({ text: q.question, relevant: new Map(Object.entries(q.relevant)), group: q.kind }));
    return { marker, keyOf: pageOf, queries };
  }
  const marker = JSON.parse(fs.readFileSync(path.join(o.dir, "bench-dataset.json"), "utf8"));
  const dataset: string = o.dataset ?? marker.dataset;
  const texts = await readQueries(dataset);
  const queries: LabQuery[] = [];
  for (const split of o.splits ?? ["test"]) {
    for (const [qid, relevant] of await readQrels(dataset, split)) if (texts.get(qid)?.trim()) queries.push({ text: texts.get(qid)!, relevant, group: split });
  }
  return { marker, keyOf: (source) => source, queries };
}
