// The scale bench's corpus, queries and vectors on a tiny fixture tree (never the machine's
// /usr/share): what is read, how roff and HTML are stripped, duplicates, chunking, and that
// every sample is the same from the same seed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSourceTexts, type TextRoots } from "../../src/evaluation/bench/scale/text-sources.js";
import { roffToText } from "../../src/evaluation/bench/scale/roff.js";
import { buildCorpus, chunkText, documentAt } from "../../src/evaluation/bench/scale/corpus.js";
import { dfSample, makeQuery, planQueryChunks, terms } from "../../src/evaluation/bench/scale/queries.js";
import { createSpace, documentVectors, dot, queryVector } from "../../src/evaluation/bench/scale/vectors.js";
import { TopK, recallAt } from "../../src/evaluation/bench/scale/exact.js";
import { parseScaleArgs } from "../../src/evaluation/bench/scale/options.js";
import { progressLine } from "../../src/evaluation/bench/scale/progress.js";

const STATUS = `Package: zstd-fixture
Status: install ok installed
Description: fast lossless compression algorithm
 Zstandard compresses data at high ratios while decompressing very quickly.
 .
 This package contains the command line tool.

Package: gravel-fixture
Description: sorting pebbles by weight
 The gravel tool arranges pebbles into buckets by their measured weight.
`;

const MANPAGE = `.\\" comment line that must vanish
.TH PEBBLE 1 "2024" "pebble 1.0"
.SH NAME
pebble \\- count \\fBsmall\\fR stones
.SH DESCRIPTION
.B pebble
reads a list of stones and prints the heaviest one.
.TP
.BR \\-v ", " \\-\\-verbose
explain every weighing step
.de XX
.. 
`;

const GPL = "This program is free software; you can redistribute it under the terms of the licence.\n";
let root: string;
let roots: TextRoots;

function write(rel: string, data: string | Buffer) {
  const p = path.join(root, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-scale-fixture-"));
  write("status", STATUS);
  write("man/man1/pebble.1.gz", zlib.gzipSync(MANPAGE));
  write("man/man1/stone.1.gz", zlib.gzipSync(".so man1/pebble.1\n"));
  write("doc/pebble/README", "Pebble README\n\nUse pebble to weigh stones in the garden.\n\nA second paragraph about gravel sorting machines.\n");
  write("doc/pebble/changelog.Debian.gz", zlib.gzipSync("pebble (1.0-1) unstable; urgency=low\n\n  * Initial release with boulder support.\n"));
  write("doc/pebble/index.html", "<html><head><style>p{}</style></head><body><h1>Pebble manual</h1><p>Granite &amp; basalt pebbles are weighed first.</p><script>alert(1)</script></body></html>");
  write("doc/pebble/logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  write("doc/pebble/copyright", GPL);
  write("doc/gravel/copyright", GPL);
  roots = { dpkgStatus: path.join(root, "status"), aptDumpavail: false, manDir: path.join(root, "man"), docDir: path.join(root, "doc") };
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("scale corpus: real text from package lists, man pages and documentation", () => {
  it("reads package descriptions, man pages (roff stripped, .so links skipped) and docs (HTML stripped, binaries skipped)", () => {
    const texts = readSourceTexts(roots);
    const pkg = texts.filter((t) => t.origin === "package");
    expect(pkg.map((t) => t.title)).toEqual(["zstd-fixture: fast lossless compression algorithm", "gravel-fixture: sorting pebbles by weight"]);
    expect(pkg[0].text).toBe("Zstandard compresses data at high ratios while decompressing very quickly.\n\nThis package contains the command line tool.");
    const man = texts.filter((t) => t.origin === "man");
    expect(man).toHaveLength(1);
    expect(man[0].title).toBe("PEBBLE (pebble.1)");
    expect(man[0].text).toContain("pebble - count small stones");
    expect(man[0].text).toContain("-v, --verbose");
    expect(man[0].text).not.toMatch(/\\f|\.SH|comment line|\.TH/);
    const docs = texts.filter((t) => t.origin === "doc").map((t) => t.title);
    expect(docs).toEqual(["gravel/copyright", "pebble/README", "pebble/changelog.Debian", "pebble/copyright", "pebble/index.html"]);
    const html = texts.find((t) => t.title === "pebble/index.html")!.text;
    expect(html).toContain("Granite & basalt pebbles are weighed first.");
    expect(html).not.toMatch(/<|alert|p\{\}/);
  });

  it("roff: font escapes, comments and macro definitions go, macro arguments stay", () => {
    const { title, text } = roffToText('.TH LS 1\n.SH "SEE ALSO"\n\\fBdir\\fP(1), \\(bu item\n.de FOO\nhidden\n..\nvisible\n');
    expect(title).toBe("LS");
    expect(text).toBe("SEE ALSO\n\ndir(1), • item\nvisible");
  });

  it("packs paragraphs into chunks of at most N words and splits long paragraphs", () => {
    const long = Array.from({ length: 25 }, (_, i) => `w${i}`).join(" ");
    expect(chunkText(`one two three four five\n\nsix seven eight nine ten\n\n${long}`, 10).map((c) => c.split(" ").length)).toEqual([10, 10, 10, 5]);
    expect(chunkText("too short")).toEqual([]);
  });

  it("drops duplicate files, and the same seed gives the same stream (composed documents past the real ones)", () => {
    const a = buildCorpus(readSourceTexts(roots), 7);
    const b = buildCorpus(readSourceTexts(roots), 7);
    expect(a.duplicatesDropped).toBe(1); // the second identical copyright file
    expect(a.real.map((d) => d.source)).toEqual(b.real.map((d) => d.source));
    const n = a.real.length;
    const composed = documentAt(a, n + 3);
    expect(composed.origin).toBe("composed");
    expect(documentAt(b, n + 3)).toEqual(composed);
    // every word of a composed chunk comes from the real text
    const realWords = new Set(a.real.flatMap((d) => d.chunks.join(" ").split(" ")));
    for (const c of composed.chunks) for (const w of c.split(" ")) expect(realWords.has(w)).toBe(true);
    expect(documentAt(a, n + 4)).not.toEqual(composed);
  });
});

describe("scale queries and vectors", () => {
  const chunk = "The gravel tool arranges pebbles into buckets by their measured weight using granite scales.";
  const df = dfSample([chunk, "gravel pebbles granite", "pebbles buckets weight", "unrelated text about compilers"]);

  it("keyword queries take terms of their chunk; question queries wrap the chunk's words; both deterministic", () => {
    const kw = makeQuery(1, 0, chunk, df)!;
    expect(kw.kind).toBe("keyword");
    for (const t of kw.text.split(" ")) expect(terms(chunk)).toContain(t);
    const qq = makeQuery(1, 1, chunk, df)!;
    expect(qq.kind).toBe("question");
    expect(makeQuery(1, 1, chunk, df)).toEqual(qq);
    expect(qq.text.split(" ").some((w) => terms(chunk).includes(w))).toBe(true);
  });

  it("plans query chunks inside each tenant's range, the same for the same seed", () => {
    const plan = planQueryChunks(3, 40, [0, 100], [100, 100]);
    expect(planQueryChunks(3, 40, [0, 100], [100, 100])).toEqual(plan);
    for (const [g, qs] of plan) for (const q of qs) expect(q % 2 === 0 ? g < 100 : g >= 100).toBe(true);
  });

  it("vectors are unit length, reproducible (a prefix is the same), and a query is nearest its own chunk", () => {
    const space = createSpace(64, 8, 5);
    const five = documentVectors(space, 3, "doc-a", 5);
    const three = documentVectors(space, 3, "doc-a", 3);
    expect(three).toEqual(five.slice(0, 3));
    for (const v of five) expect(dot(v, v)).toBeCloseTo(1, 5);
    const q = queryVector(space, five[2], 0);
    const others = [...documentVectors(space, 4, "doc-b", 5), ...documentVectors(space, 9, "doc-c", 5), ...five];
    const best = others.reduce((a, b) => (dot(q, b) > dot(q, a) ? b : a));
    expect(best).toBe(five[2]);
  });

  it("TopK keeps the best k in order; recall counts the overlap", () => {
    const t = new TopK(3);
    [["a", 0.1], ["b", 0.9], ["c", 0.5], ["d", 0.7], ["e", 0.2]].forEach(([k, s]) => t.offer(k as string, s as number));
    expect(t.keys).toEqual(["b", "d", "c"]);
    expect(recallAt(["b", "x", "c"], t.keys, 3)).toBeCloseTo(2 / 3);
  });
});

describe("scale options and progress", () => {
  it("parses the scale flags and drops the tenants layout when N is too small for it", () => {
    const o = parseScaleArgs(["--scale", "200000", "--queries", "50", "--sources", "man,doc", "--vectors", "model"]);
    expect(o).toMatchObject({ chunks: 200000, queries: 50, vectors: "model", layouts: ["one", "tenants"], tenantChunks: 20000 });
    expect(o.roots.dpkgStatus).toBeNull();
    expect(o.roots.aptDumpavail).toBe(false);
    expect(parseScaleArgs(["--scale", "1000"]).layouts).toEqual(["one"]);
    expect(() => parseScaleArgs(["--scale", "1000", "--vectors", "random"])).toThrow(/synthetic or model/);
    expect(() => parseScaleArgs(["--layouts", "one"])).toThrow(/--scale N is required/);
    expect(() => parseScaleArgs(["--scale", "1000", "--frobnicate"])).toThrow(/Unknown option '--frobnicate'/);
    expect(() => parseScaleArgs(["--scale"])).toThrow(/argument missing/);
    expect(() => parseScaleArgs(["--scale", "1000", "--seed=-1"])).toThrow(/--seed must be an integer >= 0/);
    expect(parseScaleArgs(["--scale", "1000", "--no-http", "--dpkg-status", "/x/status", "--sources", "package"]).roots).toMatchObject({ dpkgStatus: "/x/status", manDir: null, docDir: null });
  });

  it("progress lines carry counts, rate and ETA", () => {
    expect(progressLine("loading", 500, 2000, 10_000)).toBe("  loading: 500/2,000 (25%), 50/s, elapsed 10 s, ETA 30 s");
    expect(progressLine("loading", 2000, 2000, 40_000)).toContain("ETA done");
  });
});
