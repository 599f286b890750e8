import { describe, expect, it } from "vitest";
import { proseSentence, splitSentences } from "../../src/evaluation/labs/sentences.js";

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
