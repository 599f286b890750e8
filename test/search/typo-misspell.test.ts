// The typo bench's misspellings (evaluation/bench/typos/misspell.ts): one edit each, of a word of
// 5+ letters the parser keeps, after the first letter unless asked, the same set for the same seed.
import { describe, expect, it } from "vitest";
import { misspell } from "../../src/evaluation/bench/typos/misspell.js";
import { editDistance } from "../../src/search/lexical/typos.js";

const QUESTIONS = [
  { id: "a", question: "how do I read environment variables in my code" },
  { id: "b", question: "why can't I use require in a .mjs file" },
  { id: "c", question: "is it ok" },
];

describe("typo bench misspellings", () => {
  it("edits one eligible word once, keeping its first letter, reproducibly", () => {
    const set = misspell(QUESTIONS, 50, { seed: 7, firstLetter: false });
    expect(set).toHaveLength(50);
    expect(misspell(QUESTIONS, 50, { seed: 7, firstLetter: false })).toEqual(set);
    for (const m of set) {
      expect(m.id).not.toBe("c");
      expect(m.word.length).toBeGreaterThanOrEqual(5);
      expect(m.typo[0]).toBe(m.word[0]);
      expect(editDistance(m.word, m.typo, 2)).toBe(1);
      expect(m.misspelt.replace(m.typo, m.word)).toBe(m.question);
    }
    expect(new Set(set.map((m) => m.edit)).size).toBe(4);
  });

  it("edits first letters too when asked", () => {
    expect(misspell(QUESTIONS, 200, { seed: 7, firstLetter: true }).some((m) => m.typo[0] !== m.word[0])).toBe(true);
  });
});
