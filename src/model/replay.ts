// General training pairs replayed beside a collection's own while the whole model adapts to it
// (collection-adapt.ts), so the rows the collection moves keep what they knew: the lab measured
// the documentation sets losing up to 0.01 without them and keeping their level with three times
// as many replayed as the collection's own (docs/model.md, 2026-11-29). A seeded sample of the mined
// pairs outside the dev split ships as model/replay-pairs.jsonl.gz (`npm run model:replay` writes it
// from data/model/pairs.jsonl; its sources and licences are those of model/DATA.md).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import type { TextPair } from "./corpus.js";
import { distinctQueryTokens, isDevPair } from "./dev-split.js";
import { MODEL_DIR } from "./paths.js";
import type { Random } from "./random.js";

export const REPLAY_FILE = path.join(MODEL_DIR, "replay-pairs.jsonl.gz");
/** pairs in the shipped sample */
export const REPLAY_SAMPLE_SIZE = 30_000;
/** a replayed passage keeps this many characters (the sample's size; a bag of words gains little from more) */
const MAX_PASSAGE_CHARS = 1_500;

let loaded: TextPair[] | null = null;

/** The shipped sample (read once per process); empty when the file is missing. */
export function replayPairs(file = REPLAY_FILE): TextPair[] {
  if (loaded && file === REPLAY_FILE) return loaded;
  if (!fs.existsSync(file)) return [];
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString("utf8").split("\n").filter(Boolean);
  const pairs = lines.map((l) => JSON.parse(l) as TextPair);
  if (file === REPLAY_FILE) loaded = pairs;
  return pairs;
}

/** `n` pairs drawn from `pool` with `rnd` (with replacement: a large collection may ask for more than the sample holds). */
export function drawReplay(pool: readonly TextPair[], n: number, rnd: Random): TextPair[] {
  if (pool.length === 0 || n <= 0) return [];
  return Array.from({ length: n }, () => pool[Math.floor(rnd.next() * pool.length)]!);
}

/** The sample to ship: `size` mined pairs outside the dev split, drawn with `rnd` without replacement. */
export function sampleForReplay(minedJsonl: string, size: number, rnd: Random): TextPair[] {
  const lines = minedJsonl.split("\n").filter(Boolean);
  const order = rnd.shuffle(Uint32Array.from({ length: lines.length }, (_, i) => i));
  const out: TextPair[] = [];
  for (const i of order) {
    if (out.length === size) break;
    const o = JSON.parse(lines[i]!) as TextPair;
    if (isDevPair(o.s, distinctQueryTokens(o.q))) continue;
    out.push({ s: o.s, q: o.q, p: o.p.slice(0, MAX_PASSAGE_CHARS) });
  }
  return out;
}
