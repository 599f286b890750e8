import { describe, expect, it } from "vitest";
import { collapseByDocument, limitPerDocument } from "../../src/search/collapse.js";

describe("collapseByDocument", () => {
  const docOf = new Map([
    ["c1", "d1"],
    ["c2", "d1"],
    ["c3", "d2"],
    ["c4", "d3"],
    ["c5", "d2"],
  ]);

  it("keeps each document's best chunk, ordered by score", () => {
    const hits = [
      { id: "c2", score: 0.4 },
      { id: "c3", score: 0.9 },
      { id: "c1", score: 0.7 },
      { id: "c5", score: 0.95 },
      { id: "c4", score: 0.1 },
    ];
    expect(collapseByDocument(hits, docOf)).toEqual([
      { id: "c5", score: 0.95, documentId: "d2" },
      { id: "c1", score: 0.7, documentId: "d1" },
      { id: "c4", score: 0.1, documentId: "d3" },
    ]);
  });

  it("keeps the first chunk on equal scores and carries extra fields", () => {
    const hits = [
      { id: "c2", score: 0.5, lexicalRank: 1 },
      { id: "c1", score: 0.5, lexicalRank: 2 },
    ];
    expect(collapseByDocument(hits, (id) => docOf.get(id))).toEqual([{ id: "c2", score: 0.5, lexicalRank: 1, documentId: "d1" }]);
  });

  it("drops chunks with no known document, and handles empty input", () => {
    expect(collapseByDocument([{ id: "gone", score: 1 }, { id: "c4", score: 0.5 }], docOf)).toEqual([
      { id: "c4", score: 0.5, documentId: "d3" },
    ]);
    expect(collapseByDocument([], docOf)).toEqual([]);
  });
});

describe("limitPerDocument", () => {
  const hits = [
    { id: "a1", documentId: "a" },
    { id: "b1", documentId: "b" },
    { id: "a2", documentId: "a" },
    { id: "a3", documentId: "a" },
    { id: "b2", documentId: "b" },
  ];

  it("keeps at most max per document, in input order", () => {
    expect(limitPerDocument(hits, 1).map((h) => h.id)).toEqual(["a1", "b1"]);
    expect(limitPerDocument(hits, 2).map((h) => h.id)).toEqual(["a1", "b1", "a2", "b2"]);
    expect(limitPerDocument(hits, 20)).toEqual(hits);
    expect(limitPerDocument(hits, 0)).toEqual([]);
  });
});
