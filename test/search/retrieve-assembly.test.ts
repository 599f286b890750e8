import { describe, expect, it, vi } from "vitest";
import { countTokens } from "../../src/ingest/tokens.js";
import {
  assembleRetrieve,
  neighbourRanges,
  removeOverlap,
  selectMatches,
  type ChunkRecord,
  type RetrieveOptions,
  type ScoredChunk,
} from "../../src/search/retrieve-assembly.js";

// Three documents: A has chunks 0..5, B 0..2, C 0..0.
const SIZES: Record<string, number> = { A: 6, B: 3, C: 1 };
const chunk = (doc: string, position: number): ChunkRecord => ({
  id: `${doc}${position}`,
  documentId: doc,
  position,
  text: `Chunk ${doc}${position} says something about topic ${doc} in part ${position}.`,
  headingPath: doc === "A" ? ["Guide", position < 3 ? "Install" : "Usage"] : [],
  title: `Doc ${doc}`,
  source: `https://example.com/${doc.toLowerCase()}`,
});
const all = new Map<string, ChunkRecord[]>(
  Object.entries(SIZES).map(([doc, n]) => [doc, Array.from({ length: n }, (_, p) => chunk(doc, p))]),
);
const match = (id: string, score: number): ScoredChunk => {
  const c = all.get(id.slice(0, 1))?.[Number(id.slice(1))];
  if (!c) throw new Error(`no chunk ${id}`);
  return { ...c, score };
};
const opts = (o: Partial<RetrieveOptions> = {}): RetrieveOptions => ({
  topK: 8,
  maxChunksPerDocument: 3,
  contextWindow: 0,
  maxTokens: null,
  format: "json",
  ...o,
});
const summary = (r: ReturnType<typeof assembleRetrieve>): string[] =>
  r.contexts.map((c) => `${c.id}${c.expanded ? "+" : ""}@${c.score}#${c.citation}`);

describe("selection", () => {
  it("ranks by score, caps per document, then takes top k; duplicate ids once", () => {
    const matches = [match("A0", 0.1), match("A2", 0.9), match("B1", 0.8), match("A3", 0.5), match("C0", 0.3), match("A4", 0.2), match("A2", 0.05)];
    const selected = selectMatches(matches, { topK: 3, maxChunksPerDocument: 2 });
    expect(selected.map((m) => m.id)).toEqual(["A2", "B1", "A3"]);
    expect(selectMatches(matches, { topK: 10, maxChunksPerDocument: 2 }).map((m) => m.id)).toEqual(["A2", "B1", "A3", "C0"]);
  });

  it("neighbour ranges clamp at position 0", () => {
    expect(neighbourRanges([match("A0", 1), match("B2", 0.5)], 2)).toEqual([
      { documentId: "A", fromPosition: 0, toPosition: 2 },
      { documentId: "B", fromPosition: 0, toPosition: 4 },
    ]);
    expect(neighbourRanges([match("A0", 1)], 0)).toEqual([]);
  });
});

describe("assembleRetrieve: contexts and order", () => {
  it("window 0: touching matches of a document form one block, blocks by best score", () => {
    const r = assembleRetrieve([match("A2", 0.9), match("B1", 0.8), match("A3", 0.5), match("C0", 0.3)], all, opts({ topK: 3 }));
    expect(summary(r)).toEqual(["A2@0.9#1", "A3@0.5#1", "B1@0.8#2"]);
    expect(r.documents).toEqual([
      { document_id: "A", title: "Doc A", source: "https://example.com/a", best_score: 0.9, chunks: 2 },
      { document_id: "B", title: "Doc B", source: "https://example.com/b", best_score: 0.8, chunks: 1 },
    ]);
    expect(r.text).toBeNull();
    expect(r.token_estimate).toBe(r.contexts.reduce((n, c) => n + countTokens(c.text), 0));
    expect(r.contexts[0]).toEqual({
      id: "A2", document_id: "A", title: "Doc A", source: "https://example.com/a", position: 2,
      heading_path: ["Guide", "Install"], text: chunk("A", 2).text, score: 0.9, expanded: false, citation: 1,
    });
  });

  it("citations follow first appearance, one per document, across separate blocks", () => {
    const r = assembleRetrieve([match("A5", 0.9), match("B1", 0.8), match("A0", 0.7)], all, opts());
    expect(summary(r)).toEqual(["A5@0.9#1", "B1@0.8#2", "A0@0.7#1"]);
    expect(r.documents.map((d) => [d.document_id, d.chunks, d.best_score])).toEqual([["A", 2, 0.9], ["B", 1, 0.8]]);
  });

  it("context window stops at document edges", () => {
    const r = assembleRetrieve([match("A0", 0.9), match("B2", 0.4), match("C0", 0.2)], all, opts({ contextWindow: 2 }));
    expect(summary(r)).toEqual(["A0@0.9#1", "A1+@0.9#1", "A2+@0.9#1", "B0+@0.4#2", "B1+@0.4#2", "B2@0.4#2", "C0@0.2#3"]);
  });

  it("overlapping windows merge; a shared neighbour carries the better match's score", () => {
    const r = assembleRetrieve([match("A3", 0.6), match("A1", 0.9)], all, opts({ contextWindow: 1 }));
    expect(summary(r)).toEqual(["A0+@0.9#1", "A1@0.9#1", "A2+@0.9#1", "A3@0.6#1", "A4+@0.6#1"]);
    expect(r.documents).toEqual([{ document_id: "A", title: "Doc A", source: "https://example.com/a", best_score: 0.9, chunks: 5 }]);
  });

  it("a neighbour that is also a selected match stays a match", () => {
    const r = assembleRetrieve([match("A1", 0.9), match("A2", 0.3)], all, opts({ contextWindow: 1 }));
    expect(summary(r)).toEqual(["A0+@0.9#1", "A1@0.9#1", "A2@0.3#1", "A3+@0.3#1"]);
  });

  it("takes neighbours from a lookup function, asking for each match's range", () => {
    const lookup = vi.fn((doc: string, from: number, to: number) => (all.get(doc) ?? []).filter((c) => c.position >= from && c.position <= to));
    const r = assembleRetrieve([match("B1", 0.7), match("A5", 0.5)], lookup, opts({ contextWindow: 1 }));
    expect(lookup.mock.calls).toEqual([["B", 0, 2], ["A", 4, 6]]);
    expect(summary(r)).toEqual(["B0+@0.7#1", "B1@0.7#1", "B2+@0.7#1", "A4+@0.5#2", "A5@0.5#2"]);
  });

  it("no matches: empty body; text format gives an empty block", () => {
    expect(assembleRetrieve([], all, opts())).toEqual({ contexts: [], documents: [], token_estimate: 0, text: null });
    expect(assembleRetrieve([], all, opts({ format: "text" }))).toEqual({ contexts: [], documents: [], token_estimate: 0, text: "" });
  });
});

describe("assembleRetrieve: token budget", () => {
  const matches = [match("A1", 0.9), match("B1", 0.5)];
  const tokens = (id: string): number => countTokens(match(id, 0).text);

  it("drops the lowest-scored contexts first, neighbours before their match", () => {
    const full = assembleRetrieve(matches, all, opts({ contextWindow: 1 }));
    expect(summary(full)).toEqual(["A0+@0.9#1", "A1@0.9#1", "A2+@0.9#1", "B0+@0.5#2", "B1@0.5#2", "B2+@0.5#2"]);

    const keepB1 = tokens("A0") + tokens("A1") + tokens("A2") + tokens("B1");
    const r1 = assembleRetrieve(matches, all, opts({ contextWindow: 1, maxTokens: keepB1 }));
    expect(summary(r1)).toEqual(["A0+@0.9#1", "A1@0.9#1", "A2+@0.9#1", "B1@0.5#2"]);
    expect(r1.token_estimate).toBe(keepB1);

    const r2 = assembleRetrieve(matches, all, opts({ contextWindow: 1, maxTokens: keepB1 - 1 }));
    expect(summary(r2)).toEqual(["A0+@0.9#1", "A1@0.9#1", "A2+@0.9#1"]);
    expect(r2.documents.map((d) => d.document_id)).toEqual(["A"]);

    // Next the following neighbour of the best match goes, then the preceding one.
    const r3 = assembleRetrieve(matches, all, opts({ contextWindow: 1, maxTokens: tokens("A0") + tokens("A1") }));
    expect(summary(r3)).toEqual(["A0+@0.9#1", "A1@0.9#1"]);
    const r4 = assembleRetrieve(matches, all, opts({ contextWindow: 1, maxTokens: tokens("A1") }));
    expect(summary(r4)).toEqual(["A1@0.9#1"]);
    expect(r4.contexts[0]?.text).toBe(chunk("A", 1).text);
  });

  it("cuts the best chunk at a word boundary when it alone exceeds the budget", () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    const big: ScoredChunk = { ...chunk("C", 0), text: words, score: 1 };
    const r = assembleRetrieve([big, match("A1", 0.5)], all, opts({ maxTokens: 100 }));
    expect(r.contexts).toHaveLength(1);
    const text = r.contexts[0]?.text ?? "";
    expect(text.endsWith("…")).toBe(true);
    expect(words.startsWith(text.slice(0, -1))).toBe(true);
    expect(words[text.length - 1]).toBe(" ");
    expect(r.token_estimate).toBeLessThanOrEqual(100);
    expect(r.token_estimate).toBeGreaterThan(80);
    expect(r.token_estimate).toBe(countTokens(text));
  });

  it("cuts even a chunk without spaces, keeping surrogate pairs whole", () => {
    const blob = "🔥".repeat(400);
    const r = assembleRetrieve([{ ...chunk("C", 0), text: blob, score: 1 }], all, opts({ maxTokens: 100 }));
    const text = r.contexts[0]?.text ?? "";
    expect(text.length).toBeGreaterThan(10);
    expect(text.endsWith("…")).toBe(true);
    expect(blob.startsWith(text.slice(0, -1))).toBe(true);
    expect(r.token_estimate).toBeLessThanOrEqual(100);
  });

  it("text format: the whole block fits the budget", () => {
    for (const maxTokens of [100, 120, 150, 200, 400]) {
      const r = assembleRetrieve([match("A1", 0.9), match("B1", 0.5), match("C0", 0.4), match("A4", 0.3)], all, opts({ contextWindow: 2, maxTokens, format: "text" }));
      expect(r.token_estimate).toBe(countTokens(r.text ?? ""));
      expect(r.token_estimate).toBeLessThanOrEqual(maxTokens);
      expect(r.contexts.length).toBeGreaterThan(0);
    }
  });
});

describe("assembleRetrieve: text block", () => {
  it("lays out [n] title — source headers, section lines, and consecutive chunks", () => {
    const r = assembleRetrieve([match("A2", 0.9), match("B1", 0.8), match("A3", 0.5)], all, opts({ format: "text" }));
    expect(r.text).toBe(
      [
        "[1] Doc A — https://example.com/a",
        "Section: Guide › Install",
        chunk("A", 2).text,
        "",
        "Section: Guide › Usage",
        chunk("A", 3).text,
        "",
        "[2] Doc B — https://example.com/b",
        chunk("B", 1).text,
      ].join("\n"),
    );
    expect(r.token_estimate).toBe(countTokens(r.text ?? ""));
  });

  it("repeats the citation header when a document comes back after another one", () => {
    const r = assembleRetrieve([match("A5", 0.9), match("B1", 0.8), match("A0", 0.7)], all, opts({ format: "text" }));
    const headers = (r.text ?? "").split("\n").filter((l) => l.startsWith("["));
    expect(headers).toEqual(["[1] Doc A — https://example.com/a", "[2] Doc B — https://example.com/b", "[1] Doc A — https://example.com/a"]);
  });

  it("removes the chunker's overlap between consecutive chunks, only in the text block", () => {
    const shared = "the overlapping sentence repeated by the chunker.";
    const c0: ChunkRecord = { ...chunk("C", 0), id: "X0", documentId: "X", title: "Doc X", source: "", text: `First part ends with ${shared}` };
    const c1: ChunkRecord = { ...c0, id: "X1", position: 1, text: `${shared} Second part continues.` };
    const r = assembleRetrieve([{ ...c0, score: 1 }], new Map([["X", [c0, c1]]]), opts({ contextWindow: 1, format: "text" }));
    expect(r.text).toBe(`[1] Doc X\nFirst part ends with ${shared}\n\nSecond part continues.`);
    expect(r.contexts[1]?.text).toBe(c1.text);
  });
});

describe("removeOverlap", () => {
  it("strips the longest exact suffix/prefix overlap of at least 16 characters", () => {
    expect(removeOverlap("aaa bbb ccc ddd eee fff hhh", "ccc ddd eee fff hhh ggg")).toBe("ggg");
    expect(removeOverlap("aaa bbb ccc ddd eee fff", "ccc ddd eee fff ggg")).toBe("ccc ddd eee fff ggg"); // 15 chars: too short to trust
    expect(removeOverlap("short", "short tail")).toBe("short tail");
    expect(removeOverlap("no shared text at all here", "completely different words")).toBe("completely different words");
  });
});
