// npm run model:eval -- [--model FILE] [--sets scifact,node,libreoffice] [--promote]: scores a static model
// file on the evaluation sets in memory (vector-only, lexical, hybrid nDCG@10; per question kind
// for the docs sets) and, with --promote, copies it into model/ with its scores when it is at least
// as good as the shipped model on every set (hybrid), so the committed model only ever improves.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { readModel, writeModel, type ModelHeader } from "../../../model/artifact.js";
import { StaticEncoder } from "../../../model/encoder.js";
import { MODEL_DIR, MODEL_FILE } from "../../../model/paths.js";
import { plainNdcg as plain, scoreSet, type SetScores } from "./evaluate.js";

/** the shipped model's scores on the evaluation sets, which a candidate must not fall below */
const SHIPPED_METRICS = path.join(import.meta.dirname, "shipped-metrics.json");
import { loadEvalSet } from "./sets.js";

const log = (m: string) => process.stderr.write(`${m}\n`);

const { values } = parseArgs({
  options: {
    model: { type: "string", default: path.join("data", "model", "trained.qsm") },
    sets: { type: "string", default: "scifact,node,libreoffice" },
    cache: { type: "string", default: path.join("bench-results", "model-cache") },
    promote: { type: "boolean", default: false },
    // the fusion's vector weight (lexical: 1 minus it); the service's default when absent
    "vector-weight": { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  process.stdout.write("Usage: npm run model:eval -- [--model FILE] [--sets scifact,node,libreoffice] [--vector-weight W] [--promote]\n");
  process.exit(0);
}
if (values.promote && values["vector-weight"] !== undefined) {
  // the shipped scores are the service's fusion's; a candidate is compared at the same fusion
  process.stderr.write("--promote compares at the service's fusion: leave out --vector-weight\n");
  process.exit(2);
}

function summary(s: SetScores): Record<string, number> {
  const out: Record<string, number> = { vector: s.vector.ndcg10, lexical: s.lexical.ndcg10, hybrid: s.hybrid.ndcg10 };
  for (const mode of ["vector", "lexical", "hybrid"] as const) {
    const p = plain(s[mode]);
    if (p !== null) out[`${mode}_plain`] = p;
  }
  for (const [g, v] of Object.entries(s.hybrid.groups)) if (Object.keys(s.hybrid.groups).length > 1) out[`hybrid_${g}`] = v.ndcg10;
  for (const [g, v] of Object.entries(s.lexical.groups)) if (Object.keys(s.lexical.groups).length > 1) out[`lexical_${g}`] = v.ndcg10;
  return out;
}

const { header, parts } = readModel(values.model);
const encoder = new StaticEncoder(parts);
const model = { dimension: encoder.dimension, embed: (t: string) => encoder.embed(t) };
const metrics: Record<string, Record<string, number>> = {};
for (const name of values.sets.split(",")) {
  const set = await loadEvalSet(name.trim(), values.cache, log);
  if (!set) continue;
  const w = values["vector-weight"] === undefined ? null : Number(values["vector-weight"]);
  const s = scoreSet(set, model, undefined, w === null ? {} : { lexicalWeight: 1 - w, vectorWeight: w });
  metrics[set.name] = summary(s);
  log(`${set.name.padEnd(14)} ${Object.entries(metrics[set.name]!).map(([k, v]) => `${k} ${v.toFixed(4)}`).join("  ")}`);
}
process.stdout.write(`${JSON.stringify({ model: values.model, vector_weight: values["vector-weight"] ?? "default", header: { model: header.model, created_at: header.created_at }, metrics }, null, 2)}\n`);

if (values.promote) promote(header, metrics);

/**
 * Copies the model into model/ when no set's hybrid score falls below the shipped model's. The
 * scores stay here, beside the evaluation (SHIPPED_METRICS), not in the model's files: model/
 * holds what serving and training need, and the evaluation sets are never part of it.
 */
function promote(h: ModelHeader, m: Record<string, Record<string, number>>): void {
  const shipped = path.join(MODEL_DIR, MODEL_FILE);
  if (fs.existsSync(shipped) && fs.existsSync(SHIPPED_METRICS)) {
    const old = JSON.parse(fs.readFileSync(SHIPPED_METRICS, "utf8")) as Record<string, Record<string, number>>;
    const worse = Object.keys(m).filter((set) => old[set] && (m[set]!.hybrid ?? 0) < (old[set]!.hybrid ?? 0) - 1e-4);
    if (worse.length) {
      log(`not promoted: hybrid below the shipped model on ${worse.join(", ")}`);
      return;
    }
  }
  writeModel(shipped, parts, { model: h.model, training: h.training });
  fs.writeFileSync(path.join(MODEL_DIR, `${h.model}.json`), `${JSON.stringify(readModel(shipped).header, null, 2)}\n`);
  fs.writeFileSync(SHIPPED_METRICS, `${JSON.stringify(m, null, 2)}\n`);
  log(`promoted to ${shipped}`);
}
