// The general pairs a whole-model adaptation replays (src/model/replay.ts): the shipped sample is
// 30,000 mined pairs, none of the dev split; a sample is the same for the same seed and never
// holds a dev pair; a draw takes as many as asked, with replacement.
import { describe, expect, it } from "vitest";
import { distinctQueryTokens, isDevPair } from "../../src/model/dev-split.js";
import { Random } from "../../src/model/random.js";
import { drawReplay, REPLAY_SAMPLE_SIZE, replayPairs, sampleForReplay } from "../../src/model/replay.js";

const mined = Array.from({ length: 400 }, (_, i) => JSON.stringify({ s: i % 3 ? "python-docs" : "man-pages", q: `heading number ${i} about topic${i % 37}`, p: `passage ${i} `.repeat(400) })).join("\n");

describe("replayed general pairs", () => {
  it("ships a sample of REPLAY_SAMPLE_SIZE mined pairs outside the dev split", () => {
    const pairs = replayPairs();
    expect(pairs).toHaveLength(REPLAY_SAMPLE_SIZE);
    expect(pairs.filter((p) => isDevPair(p.s, distinctQueryTokens(p.q)))).toEqual([]);
    expect(new Set(pairs.map((p) => p.s)).size).toBeGreaterThan(10);
  });

  it("samples the same pairs for the same seed, none of the dev split, passages cut to 1,500 characters", () => {
    const a = sampleForReplay(mined, 100, new Random(1));
    expect(a).toHaveLength(100);
    expect(sampleForReplay(mined, 100, new Random(1))).toEqual(a);
    expect(sampleForReplay(mined, 100, new Random(2))).not.toEqual(a);
    expect(a.filter((p) => isDevPair(p.s, distinctQueryTokens(p.q)))).toEqual([]);
    expect(Math.max(...a.map((p) => p.p.length))).toBeLessThanOrEqual(1500);
    const all = sampleForReplay(mined, 10_000, new Random(1));
    const dev = mined.split("\n").map((l) => JSON.parse(l)).filter((p) => isDevPair(p.s, distinctQueryTokens(p.q))).length;
    expect(dev).toBeGreaterThan(0); // the fixture holds dev pairs, so leaving them out is checked
    expect(all).toHaveLength(400 - dev);
  });

  it("draws as many as asked from a pool, with replacement, and none from an empty one", () => {
    const pool = sampleForReplay(mined, 10, new Random(1));
    const drawn = drawReplay(pool, 25, new Random(3));
    expect(drawn).toHaveLength(25);
    for (const p of drawn) expect(pool).toContain(p);
    expect(drawReplay([], 5, new Random(3))).toEqual([]);
  });
});
