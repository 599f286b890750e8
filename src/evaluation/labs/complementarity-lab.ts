// Lab (issue 27, 2026-11-29): why a vector list helps hybrid search or not. For USE lite (int8) and
// a static model file, on one evaluation set in memory: vector-only and hybrid nDCG@10, how many
// queries hybrid lifts above lexical and how many it drops below (and by how much on average), and
// how many of the vector list's top 10 chunks BM25's top 10 already holds. A list that agrees with
// BM25 adds little even when it is good alone; USE lite's weak list helps because it disagrees.
//
//   BEIR_DATA_DIR=… npx tsx --max-old-space-size=6000 src/evaluation/labs/complementarity-lab.ts \
//     --set scifact [--model model/quarry-static-v1.qsm] [--row-scale 127]
import path from "node:path";
import { parseArgs } from "node:util";
import { readModel } from "../../model/artifact.js";
import { StaticEncoder } from "../../model/encoder.js";
import { builtInProfiles, createEmbedder } from "../../embed/index.js";
import { fusedLists, lexicalLists, nearest, perQueryNdcg, plainNdcg, scoreLists, vectorLists, type ModeScores } from "../bench/model/evaluate.js";
import { embeddedText, loadEvalSet, type EvalSet } from "../bench/model/sets.js";
import type { Candidate } from "../../search/fusion.js";

const { values: a } = parseArgs({
  options: {
    set: { type: "string", default: "scifact" },
    model: { type: "string", default: path.join("model", "quarry-static-v1.qsm") },
    "row-scale": { type: "string", default: "1" },
    cache: { type: "string", default: path.join("bench-results", "model-cache") },
  },
});
const log = (m: string) => process.stderr.write(`${m}\n`);
const BATCH = 500;

async function useLiteLists(set: EvalSet): Promise<Candidate[][]> {
  const e = createEmbedder(builtInProfiles().find((p) => p.name === "use-lite-int8")!, { modelsDir: "", allowDownload: false, poolSize: 2 });
  if (!(await e.whenReady())) throw new Error(`USE lite did not load: ${e.status().detail}`);
  const d = e.profile.dimension;
  const texts = set.passages.map(embeddedText);
  const matrix = new Float32Array(texts.length * d);
  for (let i = 0; i < texts.length; i += BATCH) (await e.embedPassages(texts.slice(i, i + BATCH))).forEach((v, k) => matrix.set(v, (i + k) * d));
  const lists: Candidate[][] = [];
  for (const q of set.queries) lists.push(nearest(matrix, d, await e.embedQuery(q.text)));
  await e.close();
  return lists;
}

function staticLists(set: EvalSet): Candidate[][] {
  const { parts } = readModel(a.model!);
  const scale = Number(a["row-scale"]);
  if (scale !== 1) parts.params.rowScale = parts.params.rowScale!.map((s) => s * scale);
  const enc = new StaticEncoder(parts);
  return vectorLists(set, { dimension: enc.dimension, embed: (t) => enc.embed(t) });
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

function describe(name: string, set: EvalSet, lexical: Candidate[][], vector: Candidate[][]): void {
  const lex = perQueryNdcg(set, lexical);
  const hybrid = perQueryNdcg(set, fusedLists(lexical, vector));
  const up = hybrid.map((h, i) => h - lex[i]!).filter((x) => x > 1e-9);
  const down = hybrid.map((h, i) => lex[i]! - h).filter((x) => x > 1e-9);
  const overlap = vector.map((v, i) => {
    const top = new Set(lexical[i]!.slice(0, 10).map((c) => c.id));
    return v.slice(0, 10).filter((c) => top.has(c.id)).length;
  });
  const s = scoreLists(set, lexical, vector);
  const plain = (m: ModeScores) => (plainNdcg(m) === null ? "" : ` (plain ${plainNdcg(m)!.toFixed(4)})`);
  log(
    `${name.padEnd(14)} vector ${s.vector.ndcg10.toFixed(4)}${plain(s.vector)}  hybrid ${s.hybrid.ndcg10.toFixed(4)}${plain(s.hybrid)} (lexical ${s.lexical.ndcg10.toFixed(4)}${plain(s.lexical)})  ` +
      `lifts ${up.length} queries by ${mean(up).toFixed(3)}, drops ${down.length} by ${mean(down).toFixed(3)}  ` +
      `top-10 chunks shared with BM25's: ${mean(overlap).toFixed(2)}`,
  );
}

const set = await loadEvalSet(a.set!, a.cache!, log);
if (set) {
  const lexical = lexicalLists(set);
  describe("use-lite-int8", set, lexical, await useLiteLists(set));
  describe(path.basename(a.model!), set, lexical, staticLists(set));
}
