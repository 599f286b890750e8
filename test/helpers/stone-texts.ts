// Small documents with varied vocabulary, as if the scale bench had read them from disk: the
// bench tests' corpus (scale-load, tenant-copies).
import type { SourceText } from "../../src/evaluation/bench/scale/text-sources.js";

const WORDS = "granite basalt pebble gravel boulder quartz marble slate shale flint chalk limestone sandstone obsidian pumice".split(" ");

/** `n` documents of three 40-word paragraphs; every fifth word carries its document's own token */
export function stoneTexts(n: number): SourceText[] {
  return Array.from({ length: n }, (_, i) => ({
    origin: "doc",
    source: `fixture/${i}`,
    title: `Stones ${i}`,
    text: Array.from({ length: 3 }, (_, p) => Array.from({ length: 40 }, (_, w) => `${WORDS[(i * 7 + p * 3 + w) % WORDS.length]}${(i + w) % 5 === 0 ? `x${i}` : ""}`).join(" ")).join("\n\n"),
  }));
}
