// Typo tolerance and prefix search in the lexical core (search/lexical/typos.ts, prefix.ts,
// expand.ts): the budgets, the first-letter rule, suffix typos hidden from the stemmer, the
// rare-or-absent rule, completions, exact matches ranking above both, and suggestions' order.
import { describe, expect, it } from "vitest";
import { analyzeChunk, DEFAULT_ANALYZER } from "../../../src/search/lexical/analyze.js";
import { Bm25Index } from "../../../src/search/lexical/bm25-index.js";
import { analyzerFor } from "../../../src/search/lexical/languages.js";
import { rankLexical } from "../../../src/search/lexical/rank.js";
import { answerLookup } from "../../../src/search/lexical/term-dictionary.js";
import { editDistance, typoBudget } from "../../../src/search/lexical/typos.js";
import { cutStems } from "../../../src/search/lexical/prefix.js";
import { completions } from "../../../src/search/lexical/suggest.js";
import { lexicalQueryWithRules, typedWord } from "../../../src/search/lexical/query-rules.js";
import { EQUAL_WEIGHTS, memoryIndex } from "./lexical-helpers.js";

type Row = [number, string, string];

/** Ranks `query` over the rows with the rules; keys best first, and the terms the query asked for. */
function searcher(rows: Row[]) {
  const { index, fields } = memoryIndex(rows);
  const fieldsOf = (keys: number[]) => new Map(keys.map((k) => [k, fields.get(k)!]));
  return async (query: string, rules: { typos?: boolean; prefix?: boolean } = {}) => {
    const { lexical } = await lexicalQueryWithRules(query, DEFAULT_ANALYZER, { typos: rules.typos ?? true, prefix: rules.prefix ?? false }, async (l) =>
      answerLookup(index, l),
    );
    const hits = lexical ? rankLexical(index, new Uint8Array([1]), lexical, 100, EQUAL_WEIGHTS, fieldsOf, DEFAULT_ANALYZER) : [];
    return { keys: hits.map((h) => h.key), terms: lexical?.terms ?? [] };
  };
}

/** filler rows, so a term in a few rows is rare */
const filler = (n: number, from = 1000): Row[] => Array.from({ length: n }, (_, i) => [from + i, `Page ${i}`, `general notes about topic ${i}`]);

describe("typo budget and distance", () => {
  it("allows one edit from 5 characters and two from 9, none for numbers and codes", () => {
    expect([typoBudget("tow"), typoBudget("sevem"), typoBudget("replicat"), typoBudget("replicaton"), typoBudget("123456"), typoBudget("sha256sum")]).toEqual([0, 1, 1, 2, 0, 0]);
  });

  it("counts a transposition of neighbours as one edit and stops past the bound", () => {
    expect(editDistance("phnoe", "phone", 2)).toBe(1);
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
    expect(editDistance("kitten", "sitting", 1)).toBe(2);
  });

  it("gives the full table's distance (capped at max + 1) for random words, astral characters and long words included", () => {
    // the whole optimal-string-alignment table, no band and no early stop
    const full = (a: string, b: string): number => {
      const s = [...a];
      const t = [...b];
      const d = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= s.length; i++) {
        for (let j = 1; j <= t.length; j++) {
          d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
          if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
        }
      }
      return d[s.length]![t.length]!;
    };
    const letters = ["a", "b", "c", "é", "中", "😀"];
    let seed = 11;
    const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const word = () => Array.from({ length: next(10) }, () => letters[next(letters.length)]).join("");
    for (let k = 0; k < 3000; k++) {
      const [a, b, max] = [word(), word(), next(4)];
      expect(editDistance(a, b, max), `${a} ${b} ${max}`).toBe(Math.min(full(a, b), max + 1));
    }
    const long = "x".repeat(200);
    expect(editDistance(long + "ab", long + "ba", 2)).toBe(1);
    expect(editDistance("😀" + long, long + "😀", 2)).toBe(2);
  });
});

describe("typo tolerance", () => {
  const rows: Row[] = [
    [1, "Replication", "Streaming replication keeps a standby in step."],
    [2, "Backups", "Take a base backup before you begin."],
    [3, "Seven", "The seven steps of the release."],
    ...filler(30),
  ];
  const search = searcher(rows);

  it("finds a word with a typo in its stem, and one whose suffix typo hid it from the stemmer", async () => {
    expect((await search("sevem steps")).keys[0]).toBe(3);
    expect((await search("replicaton")).keys).toEqual([1]);
    expect((await search("replcation")).keys).toEqual([1]);
  });

  it("marks added terms with the rule and a weight below the word's own", async () => {
    const { terms } = await search("replicaton");
    expect(terms[0]).toEqual({ term: "replicaton", count: 1 });
    expect(terms.slice(1)).toContainEqual({ term: "replic", count: 1, weight: 0.9, rule: "typo" });
  });

  it("keeps the first letter of a word with one edit", async () => {
    expect((await search("bevem")).keys).toEqual([]); // seven with its first letter changed
    expect((await search("backupz")).keys).toEqual([2]);
  });

  it("is off when asked, and leaves short words as written", async () => {
    expect((await search("replicaton", { typos: false })).keys).toEqual([]);
    expect((await search("sevn")).keys).toEqual([]);
  });

  it("leaves a common word as typed and corrects a rare one only to far more common words", async () => {
    const common: Row[] = [...Array.from({ length: 20 }, (_, i): Row => [i + 1, "Forms", `forms and fords ${i}`]), ...filler(30)];
    const { terms } = await searcher(common)("fords");
    expect(terms).toEqual([{ term: "ford", count: 1 }]);
  });

  it("ranks the exact word above its typo alternative", async () => {
    // "standbys" misspelt in one row: the query's own word is rare, the correction 10x as common
    const exact: Row[] = [
      [1, "A", "the standbx node"],
      ...Array.from({ length: 12 }, (_, i): Row => [10 + i, "B", `the standby node ${i}`]),
      ...filler(2000),
    ];
    const { keys, terms } = await searcher(exact)("standbx");
    expect(terms.map((t) => t.term)).toContain("standbi");
    expect(keys[0]).toBe(1);
    expect(keys).toHaveLength(13);
  });
});

describe("prefix search", () => {
  const rows: Row[] = [
    [1, "Kubernetes", "Deploy on kubernetes clusters."],
    [2, "Kube", "The kube command."],
    [3, "Replication", "Logical replication."],
    [4, "Pain", "Pain points."],
    ...filler(10),
  ];
  const search = searcher(rows);

  it("completes the last word, exact matches first", async () => {
    expect((await search("kube", { prefix: true })).keys).toEqual([2, 1]);
    expect((await search("kube")).keys).toEqual([2]);
    expect((await search("kuber", { prefix: true, typos: false })).keys).toEqual([1]);
  });

  it("completes a word typed past its stem, not a word that merely starts with a stem", async () => {
    expect((await search("replicati", { prefix: true })).keys).toEqual([3]);
    expect(cutStems("replicati", DEFAULT_ANALYZER)).toContain("replic");
    // (with typo tolerance "paint" is one edit from "pain")
    expect((await search("paint", { prefix: true, typos: false })).keys).toEqual([]);
  });

  it("takes the word being typed only when the text ends inside it", async () => {
    expect(typedWord("deploy kube")).toBe("kube");
    expect(typedWord("deploy kube ")).toBeNull();
    expect((await search("kube ", { prefix: true })).keys).toEqual([2]);
    // a stop word being typed still completes
    expect((await search("kubernetes pa", { prefix: true })).terms.map((t) => t.term)).toContain("pain");
  });
});

describe("in another language", () => {
  it("corrects and completes within the collection's language's terms", async () => {
    const de = analyzerFor("de");
    const index = new Bm25Index();
    const rows = ["Die Häuser der Altstadt", "Der Bahnhof liegt im Norden", "Verschlüsselung der Verbindung"];
    rows.forEach((body, i) => index.add(i + 1, 0, analyzeChunk({ title: "", headings: "", body }, de)));
    const run = async (query: string, prefix = false) => {
      const { lexical } = await lexicalQueryWithRules(query, de, { typos: true, prefix }, async (l) => answerLookup(index, l));
      return rankLexical(index, new Uint8Array([1]), lexical!, 10, EQUAL_WEIGHTS, () => new Map(), de).map((h) => h.key);
    };
    expect(await run("Bahnhfo")).toEqual([2]);
    expect(await run("Verschlüsselunq")).toEqual([3]);
    expect(await run("Verschl", true)).toEqual([3]);
    expect(await run("Verschl")).toEqual([]);
  });
});

describe("suggestions", () => {
  it("ranks words by where they occur, title over headings over text, and writes the commonest form", async () => {
    const fields = [
      { title: "Kubectl", headings: "", body: "kubernetes Kubernetes kubernetes kubelet" },
      { title: "Other", headings: "Kubelet", body: "KUBECTL" },
    ];
    const stems = new Set(["kubectl", "kubernet", "kubelet"]);
    // kubectl: title 4 + text 1; kubelet: heading 2 + text 1; kubernetes: text 3
    expect(completions(fields, "kube", stems, DEFAULT_ANALYZER, 5)).toEqual(["kubectl", "kubelet", "kubernetes"]);
    expect(completions(fields, "kube", new Set(["kubelet"]), DEFAULT_ANALYZER, 5)).toEqual(["kubelet"]);
    expect(completions(fields, "kubel", stems, DEFAULT_ANALYZER, 1)).toEqual(["kubelet"]);
  });
});
