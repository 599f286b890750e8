import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { splitSentences, splitWords } from "../../src/ingest/segment.js";
import { countTokens } from "../../src/ingest/tokens.js";
import type { ChunkDraft, ParsedBlock, ParsedDocument } from "../../src/ingest/types.js";
import { prose } from "./fixtures.js";

const doc = (blocks: ParsedBlock[], title = "Doc"): ParsedDocument => ({ kind: "markdown", title, blocks, metadata: {} });
const para = (text: string, page?: number): ParsedBlock => (page === undefined ? { type: "paragraph", text } : { type: "paragraph", text, page });
/** CPU milliseconds of this process: wall time is meaningless on a shared, loaded CI machine. */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
const heading = (level: number, text: string): ParsedBlock => ({ type: "heading", level, text });

/** The longest tail of `a` (starting at a word) that `b` starts with. */
function overlapOf(a: string, b: string): string {
  for (let i = 0; i < a.length; i++) {
    if (i > 0 && !/\s/.test(a[i - 1])) continue;
    const tail = a.slice(i);
    if (b.startsWith(tail)) return tail;
  }
  return "";
}

function checkInvariants(chunks: ChunkDraft[], source: ParsedDocument, size: number): void {
  const sourceWords = new Set(source.blocks.flatMap((b) => b.text.split(/\s+/)));
  chunks.forEach((c, i) => {
    expect(c.position).toBe(i);
    expect(c.text.trim()).toBe(c.text);
    expect(c.text.length).toBeGreaterThan(0);
    expect(c.tokenCount).toBe(countTokens(c.text));
    expect(c.tokenCount).toBeLessThanOrEqual(size);
    const broken = c.text.split(/\s+/).filter((w) => !sourceWords.has(w));
    expect(broken, "words that are not whole source words").toEqual([]);
  });
}

describe("chunkDocument: sizes, words, positions", () => {
  it("packs small blocks of one section together up to the size", () => {
    const blocks = Array.from({ length: 40 }, (_, i) => para(prose(20, i + 1)));
    const d = doc(blocks);
    const chunks = chunkDocument(d, { chunkSizeTokens: 128, chunkOverlapTokens: 0 });
    checkInvariants(chunks, d, 128);
    expect(chunks.length).toBeGreaterThan(4);
    expect(chunks.length).toBeLessThan(20);
    // Blocks are kept whole when they fit, separated by a blank line.
    for (const c of chunks) for (const piece of c.text.split("\n\n")) expect(blocks.some((b) => b.text === piece)).toBe(true);
  });

  it("splits an oversized block at sentence boundaries with overlap from the previous chunk", () => {
    const text = prose(3000, 7);
    const d = doc([para(text)]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 200, chunkOverlapTokens: 40 });
    checkInvariants(chunks, d, 200);
    const sentences = new Set(splitSentences(text).map((s) => s.text));
    for (let i = 1; i < chunks.length; i++) {
      const ov = overlapOf(chunks[i - 1].text, chunks[i].text);
      expect(ov.length, `chunk ${i} should start with the end of chunk ${i - 1}`).toBeGreaterThan(0);
      expect(countTokens(ov)).toBeLessThanOrEqual(40);
      // Sentences shorter than a chunk end where a sentence ends.
      expect(chunks[i - 1].text).toMatch(/\.$/);
    }
    // Without the overlaps, the chunks are the text, in order.
    let rebuilt = chunks[0].text;
    for (let i = 1; i < chunks.length; i++) rebuilt += ` ${chunks[i].text.slice(overlapOf(chunks[i - 1].text, chunks[i].text).length).trimStart()}`;
    expect(rebuilt).toBe(text);
    expect(chunks.every((c) => c.text.split(/(?<=\.)\s+/).every((s) => sentences.has(s) || c.text.startsWith(s) || c.text.endsWith(s)))).toBe(true);
  });

  it("splits a sentence longer than a chunk at word boundaries", () => {
    const sentence = `${prose(2000, 3).replace(/\./g, "")}.`;
    const d = doc([para(sentence)]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 100, chunkOverlapTokens: 10 });
    checkInvariants(chunks, d, 100);
    expect(chunks.length).toBeGreaterThan(20);
    for (let i = 1; i < chunks.length; i++) expect(overlapOf(chunks[i - 1].text, chunks[i].text).length).toBeGreaterThan(0);
  });

  it("cuts a whitespace-free run longer than a chunk, and only then", () => {
    const blob = "QUJDRE".repeat(600);
    const d = doc([para(`Before the blob. ${blob} After the blob.`)]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 64, chunkOverlapTokens: 0 });
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(64);
    expect(chunks.map((c) => c.text).join("").replace(/\s+/g, "")).toBe(`Beforetheblob.${blob}Aftertheblob.`);
  });

  it("numbers positions 0..n-1 across sections and handles empty input", () => {
    const d = doc([heading(2, "A"), para("one"), heading(2, "B"), para("two"), heading(2, "C"), para("three")]);
    expect(chunkDocument(d, { chunkSizeTokens: 50, chunkOverlapTokens: 5 }).map((c) => c.position)).toEqual([0, 1, 2]);
    expect(chunkDocument(doc([]), { chunkSizeTokens: 50, chunkOverlapTokens: 5 })).toEqual([]);
  });

  it("validates options and clamps overlap to half a chunk", () => {
    expect(() => chunkDocument(doc([para("x")]), { chunkSizeTokens: 0, chunkOverlapTokens: 0 })).toThrow(RangeError);
    const d = doc([para(prose(1000, 2))]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 60, chunkOverlapTokens: 500 });
    checkInvariants(chunks, d, 60);
    for (let i = 1; i < chunks.length; i++) expect(countTokens(overlapOf(chunks[i - 1].text, chunks[i].text))).toBeLessThanOrEqual(30);
  });
});

describe("chunkDocument: structure", () => {
  it("builds heading paths, omits the title H1 and never mixes sections", () => {
    const d = doc(
      [
        heading(1, "User Guide"),
        para("Welcome text."),
        heading(2, "Install"),
        para("Install text."),
        heading(3, "Linux"),
        para("Linux text."),
        heading(2, "Usage"),
        para("Usage text."),
        heading(1, "Reference"),
        heading(3, "Flags"),
        para("Flags text."),
      ],
      "User Guide",
    );
    const chunks = chunkDocument(d, { chunkSizeTokens: 500, chunkOverlapTokens: 50 });
    expect(chunks.map((c) => ({ text: c.text, path: c.headingPath }))).toEqual([
      { text: "Welcome text.", path: [] },
      { text: "Install text.", path: ["Install"] },
      { text: "Linux text.", path: ["Install", "Linux"] },
      { text: "Usage text.", path: ["Usage"] },
      { text: "Flags text.", path: ["Reference", "Flags"] },
    ]);
  });

  it("keeps a heading that merely repeats the title later in the document", () => {
    const d = doc([heading(1, "Intro"), para("a"), heading(2, "Details"), para("b"), heading(2, "Intro"), para("c")], "Intro");
    const paths = chunkDocument(d, { chunkSizeTokens: 100, chunkOverlapTokens: 0 }).map((c) => c.headingPath);
    expect(paths).toEqual([[], ["Details"], ["Intro"]]);
  });

  it("does not carry overlap across a heading", () => {
    const d = doc([heading(2, "One"), para(prose(400, 5)), heading(2, "Two"), para(prose(400, 6))]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 120, chunkOverlapTokens: 30 });
    const firstOfTwo = chunks.findIndex((c) => c.headingPath[0] === "Two");
    expect(firstOfTwo).toBeGreaterThan(0);
    expect(chunks[firstOfTwo].text.startsWith(prose(400, 6).slice(0, 30))).toBe(true);
    expect(chunks.filter((c) => c.headingPath[0] === "One").length).toBeGreaterThan(1);
  });

  it("gives a document of headings only one searchable chunk", () => {
    const chunks = chunkDocument(doc([heading(1, "Alpha"), heading(2, "Beta")], "Other"), { chunkSizeTokens: 50, chunkOverlapTokens: 0 });
    expect(chunks).toEqual([{ position: 0, text: "Alpha\nBeta", headingPath: [], tokenCount: countTokens("Alpha\nBeta"), metadata: {} }]);
  });

  it("records the sorted pages a chunk covers", () => {
    const d = doc([heading(1, "Report"), para("Page one text.", 1), para("Page two text.", 2), para("More page two.", 2), para(prose(300, 9), 3), para("Page five.", 5)]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 80, chunkOverlapTokens: 10 });
    checkInvariants(chunks, d, 80);
    // Page 3 starts with an oversized block whose first sentences still fit the first chunk.
    expect(chunks[0].text.startsWith("Page one text.\n\nPage two text.\n\nMore page two.")).toBe(true);
    expect(chunks[0].metadata.pages).toEqual([1, 2, 3]);
    expect(chunks.at(-1)?.metadata.pages).toEqual([3, 5]);
    for (const c of chunks) {
      const pages = c.metadata.pages as number[];
      expect(pages).toEqual([...new Set(pages)].sort((a, b) => a - b));
    }
    expect(chunkDocument(doc([para("no pages")]), { chunkSizeTokens: 80, chunkOverlapTokens: 10 })[0].metadata).toEqual({});
  });
});

describe("chunkDocument: scale", () => {
  // A whitespace-free run used to be token-counted whole: ~70 s for 256 KB of one character
  // (the tokenizer is superlinear on repeats). The test timeout catches a regression.
  it("splits a 256 KB run without spaces quickly and within the size", { timeout: 15_000 }, () => {
    const chunks = chunkDocument(doc([{ type: "paragraph", text: "a".repeat(256 * 1024) }]), { chunkSizeTokens: 200, chunkOverlapTokens: 32 });
    expect(chunks.length).toBeGreaterThan(100);
    for (const c of chunks) expect(c.tokenCount).toBeLessThanOrEqual(200);
    expect(chunks.map((c) => c.text).join("").length).toBeGreaterThanOrEqual(256 * 1024);
  });

  it("chunks a 20k-word structured document correctly and fast", () => {
    const blocks: ParsedBlock[] = [heading(1, "Big Book")];
    let wordsSoFar = 0;
    for (let ch = 1; wordsSoFar < 20_000; ch++) {
      blocks.push(heading(2, `Chapter ${ch}`));
      for (let s = 1; s <= 3; s++) {
        blocks.push(heading(3, `Section ${ch}.${s}`));
        for (let p = 0; p < 4; p++) {
          const n = 60 + ((ch * 31 + s * 7 + p * 13) % 300);
          blocks.push(para(prose(n, ch * 100 + s * 10 + p)));
          wordsSoFar += n;
        }
      }
    }
    const d = doc(blocks, "Big Book");
    let chunks: ChunkDraft[] = [];
    const elapsed = cpuMs(() => {
      chunks = chunkDocument(d, { chunkSizeTokens: 256, chunkOverlapTokens: 32 });
    });
    checkInvariants(chunks, d, 256);
    expect(elapsed).toBeLessThan(1500);
    for (const c of chunks) {
      expect(c.headingPath).toHaveLength(2);
      expect(c.headingPath[1].startsWith(c.headingPath[0].replace("Chapter ", "Section "))).toBe(true);
    }
    const words = chunks.map((c) => c.text.split(/\s+/).length).reduce((a, b) => a + b, 0);
    expect(words).toBeGreaterThanOrEqual(wordsSoFar);
  });

  it("chunks a 20k-word single paragraph", () => {
    const d = doc([para(prose(20_000, 11))]);
    const chunks = chunkDocument(d, { chunkSizeTokens: 512, chunkOverlapTokens: 64 });
    checkInvariants(chunks, d, 512);
    expect(chunks.length).toBeGreaterThan(40);
  });

  it("chunks abstract-sized documents in well under 1 ms each", () => {
    const docs = Array.from({ length: 300 }, (_, i) => doc([para(prose(300, i + 1))]));
    for (const d of docs.slice(0, 30)) chunkDocument(d, { chunkSizeTokens: 256, chunkOverlapTokens: 32 });
    const elapsed = cpuMs(() => {
      for (const d of docs) chunkDocument(d, { chunkSizeTokens: 256, chunkOverlapTokens: 32 });
    });
    expect(elapsed / docs.length).toBeLessThan(1);
  });
});

describe("segmentation", () => {
  it("splits sentences but not abbreviations, initials or decimals", () => {
    const text = "Dr. Smith measured 1.8 mm, e.g. in vivo. J. R. R. Tolkien wrote it! Was it? Yes… \"Quoted.\" Next (see Fig. 3) ends.\nNew line";
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      "Dr. Smith measured 1.8 mm, e.g. in vivo.",
      "J. R. R. Tolkien wrote it!",
      "Was it?",
      "Yes…",
      '"Quoted."',
      "Next (see Fig. 3) ends.",
      "New line",
    ]);
    expect(splitSentences(text).map((s) => s.sep)).toEqual(["", " ", " ", " ", " ", " ", "\n"]);
  });

  it("splits CJK sentences without spaces, and words on whitespace", () => {
    expect(splitSentences("今日は晴れです。明日は雨でしょう！本当？").map((s) => s.text)).toEqual(["今日は晴れです。", "明日は雨でしょう！", "本当？"]);
    expect(splitWords("  alpha beta\n gamma ")).toEqual([
      { text: "alpha", sep: "" },
      { text: "beta", sep: " " },
      { text: "gamma", sep: "\n" },
    ]);
  });
});
