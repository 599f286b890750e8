// Long Markdown is parsed in pieces (micromark's cost grows faster than the document); the
// pieces must parse to exactly the blocks the whole document parses to.
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { markdownToBlocks } from "../../src/ingest/parse/markdown.js";
import { treeToBlocks } from "../../src/ingest/parse/markdown-blocks.js";
import { markdownPieces } from "../../src/ingest/parse/markdown-pieces.js";

const wholeBlocks = (body: string) => treeToBlocks(fromMarkdown(body, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }), body);

// Each section ends in a block that holds a blank line and a "# " line, so a cut in the wrong
// place would turn code or HTML into a heading.
const SECTIONS = [
  (i: number) => `# Part ${i}\n\nText of part ${i} with *emphasis* and a [link](https://example.com/${i}).\n\n- item ${i}\n  - nested ${i}\n`,
  (i: number) => `## Code ${i}\n\n\`\`\`sh\necho ${i}\n\n# a shell comment, not a heading\n\`\`\`\n`,
  (i: number) => `## Tilde ${i}\n\n~~~~\nstill code\n~~~\n\n# inside the longer fence\n~~~~\n`,
  (i: number) => `## Comment ${i}\n\n<!-- a comment\n\n# inside the comment\n-->\nAfter the comment ${i}.\n`,
  (i: number) => `## Pre ${i}\n\n<pre>\npreformatted\n\n# inside pre\n</pre>\n`,
  (i: number) => `## Table ${i}\n\n| k | v |\n|---|---|\n| ${i} | x |\n\n> quoted ${i}\n`,
];

function longDocument(chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const part = SECTIONS[i % SECTIONS.length](i);
    parts.push(part);
    length += part.length + 1;
  }
  return parts.join("\n");
}

describe("markdown pieces", () => {
  it("cuts a long document only where the parts parse to the same blocks as the whole", () => {
    const body = longDocument(120_000);
    const pieces = markdownPieces(body);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("\n")).toBe(body);
    for (const piece of pieces) expect(piece).toMatch(/^#{1,6} /);
    expect(pieces.flatMap(wholeBlocks)).toEqual(wholeBlocks(body));
    expect(markdownToBlocks(body).blocks).toEqual(wholeBlocks(body));
  });

  it("keeps short documents and documents with reference definitions whole", () => {
    expect(markdownPieces(longDocument(10_000))).toHaveLength(1);
    const withDefinitions = `${longDocument(120_000)}\n[ref]: https://example.com\n\n[^1]: A footnote.\n`;
    expect(markdownPieces(withDefinitions)).toEqual([withDefinitions]);
  });

  it("does not cut inside an unclosed fence", () => {
    const body = `${longDocument(40_000)}\n\`\`\`\n\n# not a heading\n\n${"code line\n".repeat(5000)}\n# nor this\n`;
    const pieces = markdownPieces(body);
    expect(pieces.join("\n")).toBe(body);
    expect(pieces.some((p) => p.startsWith("# not a heading") || p.startsWith("# nor this"))).toBe(false);
  });
});
