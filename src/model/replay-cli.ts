// npm run model:replay: writes model/replay-pairs.jsonl.gz, the general pairs a collection's
// whole-model adaptation replays (replay.ts), from the mined pairs (npm run model:data).
//   npm run model:replay -- [--pairs data/model/pairs.jsonl] [--size 30000] [--seed 1]
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { Random } from "./random.js";
import { REPLAY_FILE, REPLAY_SAMPLE_SIZE, sampleForReplay } from "./replay.js";

const { values: a } = parseArgs({
  options: {
    pairs: { type: "string", default: path.join("data", "model", "pairs.jsonl") },
    size: { type: "string", default: String(REPLAY_SAMPLE_SIZE) },
    seed: { type: "string", default: "1" },
    out: { type: "string", default: REPLAY_FILE },
  },
});
if (!fs.existsSync(a.pairs!)) {
  console.error(`${a.pairs} is missing: run npm run model:data first (model/DATA.md).`);
  process.exit(2);
}
const mined = fs.readFileSync(a.pairs!, "utf8");
const sample = sampleForReplay(mined, Number(a.size), new Random(Number(a.seed)));
const body = Buffer.from(sample.map((p) => JSON.stringify(p)).join("\n") + "\n", "utf8");
// level 9 and no timestamp: the same pairs give the same bytes
fs.writeFileSync(a.out!, zlib.gzipSync(body, { level: 9 }));
const bySource = new Map<string, number>();
for (const p of sample) bySource.set(p.s, (bySource.get(p.s) ?? 0) + 1);
console.log(`${sample.length} pairs from ${a.pairs} (sha256 ${createHash("sha256").update(mined).digest("hex").slice(0, 12)}) -> ${a.out}, ${(fs.statSync(a.out!).size / 1e6).toFixed(1)} MB`);
console.log([...bySource].sort((x, y) => y[1] - x[1]).map(([s, n]) => `${s} ${n}`).join(", "));
