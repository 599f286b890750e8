// Lab (issue 27, 2026-11-29): inverse-cloze pairs for the static model. From each mined passage of
// prose, one sentence becomes the query and the passage without it the answer (Lee et al. 2019,
// "Latent Retrieval for Weakly Supervised Open Domain Question Answering"): a sentence-shaped query
// (as SciFact's claims and plain questions are) matched by the words around it, not by its own.
// Writes a pair set (the mined pairs, then the new ones as source "ict") with its manifest, for
// `npm run model:train -- --data OUT --settings '{"sourceMask":{"ict":0},...}'`.
//
//   npx tsx src/evaluation/labs/ict-lab.ts [--data data/model] [--out data/model-ict] [--seed 1]
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { distinctQueryTokens, isDevPair } from "../../model/dev-split.js";
import { Random } from "../../model/random.js";
import { words } from "../../model/mining/sections.js";
import { proseSentence, splitSentences } from "../../model/sentences.js";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: path.join("data", "model") },
    out: { type: "string", default: path.join("data", "model-ict") },
    seed: { type: "string", default: "1" },
  },
});
const log = (m: string) => process.stderr.write(`${m}\n`);

/** headword -> gloss sources: a gloss is one or two sentences, nothing to leave out */
const DICTIONARIES = new Set(["gcide", "wordnet", "foldoc", "jargon", "vera"]);
/** what is left of the passage must still be a passage (sections.ts MIN_PASSAGE_WORDS and more) */
const MIN_REST_WORDS = 20;

/** The passage's sentences, its context line apart. */
function split(passage: string): { context: string; sentences: string[] } {
  const nl = passage.indexOf("\n");
  return { context: nl >= 0 ? passage.slice(0, nl) : "", sentences: splitSentences(nl >= 0 ? passage.slice(nl + 1) : passage) };
}

const rnd = new Random(Number(values.seed));
fs.mkdirSync(values.out, { recursive: true });
const outFile = path.join(values.out, "pairs.jsonl");
const out = fs.createWriteStream(outFile);
const hash = createHash("sha256");
const write = (line: string) => {
  hash.update(line);
  if (!out.write(line)) return new Promise<void>((r) => out.once("drain", () => r()));
};
const rl = readline.createInterface({ input: fs.createReadStream(path.join(values.data, "pairs.jsonl"), { encoding: "utf8" }), crlfDelay: Infinity });
const ict: string[] = [];
let mined = 0;
for await (const line of rl) {
  if (!line) continue;
  mined++;
  await write(`${line}\n`);
  const pair = JSON.parse(line) as { s: string; q: string; p: string };
  // a dev pair's passage stays out of training in every form (the dev proxy's task)
  if (DICTIONARIES.has(pair.s) || isDevPair(pair.s, distinctQueryTokens(pair.q))) continue;
  const { context, sentences } = split(pair.p);
  if (sentences.length < 3) continue;
  const candidates = sentences.map((s, i) => (proseSentence(s) ? i : -1)).filter((i) => i >= 0);
  if (candidates.length === 0) continue;
  const pick = candidates[Math.floor(rnd.next() * candidates.length)]!;
  const rest = sentences.filter((_, i) => i !== pick).join(" ");
  if (words(rest).length < MIN_REST_WORDS) continue;
  ict.push(JSON.stringify({ s: "ict", k: "sentence", q: sentences[pick], p: context ? `${context}\n${rest}` : rest }));
}
for (const l of ict) await write(`${l}\n`);
await new Promise<void>((r) => out.end(() => r()));
const manifest = { format: 1, pairs: mined + ict.length, sha256: hash.digest("hex"), ict: ict.length, from: values.data };
fs.writeFileSync(path.join(values.out, "manifest.json"), JSON.stringify(manifest, null, 2));
log(`${outFile}: ${mined} mined pairs + ${ict.length} inverse-cloze pairs (sha256 ${manifest.sha256.slice(0, 8)})`);
