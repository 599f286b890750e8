import { describe, expect, it } from "vitest";
import { ictPairs, proseSentence, splitSentences } from "../../src/model/sentences.js";
import { Random } from "../../src/model/random.js";

describe("sentences of prose (the inverse-cloze labs)", () => {
  it("splits after a full stop, question or exclamation mark only before a capital", () => {
    expect(splitSentences("Otters eat fish. In winter they eat crabs, e.g. shore crabs! Why? because.")).toEqual([
      "Otters eat fish.",
      "In winter they eat crabs, e.g. shore crabs!",
      "Why? because.",
    ]);
  });

  it("keeps sentences of 6 to 30 mostly alphabetic words without code punctuation", () => {
    expect(proseSentence("The river otter hunts mostly at night in winter.")).toBe(true);
    expect(proseSentence("Otters eat fish.")).toBe(false);
    expect(proseSentence("Call fs.readFile(path, cb) => { return data; } when ready now.")).toBe(false);
    expect(proseSentence(Array(31).fill("word").join(" "))).toBe(false);
    expect(proseSentence("2024 10 11 12 13 14 15 and some words")).toBe(false);
  });
});

describe("inverse-cloze pairs", () => {
  const text =
    "Otters hunt along the shore at dusk and dawn. In winter they eat mostly crabs and slow fish. They keep their dens close to running water all year. Short one.";
  it("makes a prose sentence the query and the other sentences its passage", () => {
    const pairs = ictPairs(text, 2, new Random(1));
    expect(pairs).toHaveLength(2);
    for (const p of pairs) {
      expect(proseSentence(p.q)).toBe(true);
      expect(p.p).not.toContain(p.q);
      expect(splitSentences(p.p)).toHaveLength(3);
    }
    expect(pairs[0]!.q).not.toBe(pairs[1]!.q);
  });

  it("makes none of a passage under three sentences, and is the same for the same seed", () => {
    expect(ictPairs("Otters hunt along the shore at dusk. They eat crabs in the winter months.", 2, new Random(1))).toEqual([]);
    expect(ictPairs(text, 3, new Random(7))).toEqual(ictPairs(text, 3, new Random(7)));
  });
});
