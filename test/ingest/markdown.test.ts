// Edge cases of the Markdown reader. It decides heading paths for Markdown, HTML and DOCX (both
// converted to Markdown first), so what becomes a heading, and what must not, is pinned here.
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { ParseError } from "../../src/ingest/parse/errors.js";
import { htmlToBlocks } from "../../src/ingest/parse/html.js";
import { markdownToBlocks } from "../../src/ingest/parse/markdown.js";
import type { ParsedBlock } from "../../src/ingest/types.js";

const md = (...lines: string[]) => markdownToBlocks(lines.join("\n")).blocks;
const heading = (level: number, text: string): ParsedBlock => ({ type: "heading", level, text });
const para = (text: string): ParsedBlock => ({ type: "paragraph", text });

describe("markdown headings", () => {
  it("reads setext headings of both levels and keeps their heading paths", () => {
    const blocks = md("Title", "=====", "", "Body one.", "", "Sub", "---", "Body two.", "", "Multi", "line title", "===");
    expect(blocks).toEqual([heading(1, "Title"), para("Body one."), heading(2, "Sub"), para("Body two."), heading(1, "Multi line title")]);
    const chunks = chunkDocument({ kind: "markdown", title: "Doc", blocks, metadata: {} }, { chunkSizeTokens: 100, chunkOverlapTokens: 0 });
    expect(chunks.map((c) => [c.text, c.headingPath])).toEqual([
      ["Body one.", ["Title"]],
      ["Body two.", ["Title", "Sub"]],
    ]);
  });

  it("drops closing #s of ATX headings and needs a space after the #s", () => {
    expect(md("## Closing ##", "text", "# Only #", "#Nospace", "#5 bolt", "####### seven")).toEqual([
      heading(2, "Closing"),
      para("text"),
      heading(1, "Only"),
      para("#Nospace #5 bolt ####### seven"),
    ]);
  });

  it("skips headings without text", () => {
    expect(md("#", "", "text")).toEqual([para("text")]);
  });

  it("strips inline Markdown from heading text", () => {
    expect(md("## The **bold** [link](https://x.example) and `code`")).toEqual([heading(2, "The bold link and code")]);
  });

  it("does not read escaped markers (as turndown writes them) as structure", () => {
    expect(md("1\\. Not a list", "", "\\# not heading", "", "\\- dash")).toEqual([para("1. Not a list"), para("# not heading"), para("- dash")]);
  });

  // (The old line reader folded a quoted heading into the quote's paragraph, "#" and all.)
  it("reads a heading inside a block quote as a heading", () => {
    expect(md("> # Quoted heading", "> quoted text", "", "After.")).toEqual([heading(1, "Quoted heading"), para("quoted text"), para("After.")]);
  });
});

describe("markdown code", () => {
  it("keeps lines starting with # inside backtick fences as code", () => {
    expect(md("```", "# not heading", "## nor this", "```", "", "# Real")).toEqual([
      { type: "code", text: "```\n# not heading\n## nor this\n```" },
      heading(1, "Real"),
    ]);
  });

  it("reads ~~~ fences with an info string", () => {
    expect(md("~~~python", "# comment", "print(1)", "~~~", "After.")).toEqual([
      { type: "code", text: "~~~python\n# comment\nprint(1)\n~~~" },
      para("After."),
    ]);
  });

  it("runs an unclosed fence to the end of the document", () => {
    expect(md("Intro.", "", "```", "# inside", "still code")).toEqual([para("Intro."), { type: "code", text: "```\n# inside\nstill code" }]);
  });

  it("drops fences with nothing inside", () => {
    expect(md("```", "```", "", "text")).toEqual([para("text")]);
  });

  it("reads indented code after a blank line", () => {
    expect(md("Para", "", "    code line", "    more", "", "after")).toEqual([para("Para"), { type: "code", text: "code line\nmore" }, para("after")]);
  });
});

describe("markdown lists", () => {
  it("indents nested items by depth and keeps ordered markers as written", () => {
    expect(md("- a", "  - b", "    - c", "- d", "", "1. one", "1. two", "   - inner")).toEqual([
      { type: "list", text: "- a\n  - b\n    - c\n- d\n1. one\n1. two\n  - inner" },
    ]);
  });

  it("joins continuation lines and later paragraphs of an item into the item", () => {
    expect(md("- item one", "  continues here", "", "  second para of item", "- item two", "", "Para.")).toEqual([
      { type: "list", text: "- item one continues here second para of item\n- item two" },
      para("Para."),
    ]);
  });

  it("keeps task list boxes and other markers", () => {
    expect(md("- [ ] todo", "- [x] done")).toEqual([{ type: "list", text: "- [ ] todo\n- [x] done" }]);
    expect(md("* star", "+ plus")).toEqual([{ type: "list", text: "* star\n+ plus" }]);
    expect(md("1) a", "2) b")).toEqual([{ type: "list", text: "1) a\n2) b" }]);
  });

  it("folds a list inside a quote inside an item into the item's text", () => {
    expect(md("- item", "  > quoted", "  > - inner", "- next")).toEqual([{ type: "list", text: "- item quoted inner\n- next" }]);
  });

  it("ends a list at a heading", () => {
    expect(md("- a", "# H", "text")).toEqual([{ type: "list", text: "- a" }, heading(1, "H"), para("text")]);
  });
});

describe("markdown tables", () => {
  it("keeps rows as written, alignment row included, with inline Markdown stripped", () => {
    expect(md("| a | b |", "|:--|--:|", "| 1 | **2** |", "", "after")).toEqual([
      { type: "table", text: "| a | b |\n|:--|--:|\n| 1 | 2 |" },
      para("after"),
    ]);
  });

  it("reads tables without outer pipes", () => {
    expect(md("a | b", "--- | ---", "1 | 2")).toEqual([{ type: "table", text: "a | b\n--- | ---\n1 | 2" }]);
  });
});

describe("markdown html, front matter and inline text", () => {
  it("keeps the text of HTML blocks and drops comments", () => {
    expect(md("<div>", "<p>Hello html</p>", "</div>", "", "Para.")).toEqual([para("Hello html"), para("Para.")]);
    expect(md("<!-- a comment -->", "Text after comment.")).toEqual([para("Text after comment.")]);
    expect(md("Hello <b>bold</b> <span>x</span>")).toEqual([para("Hello bold x")]);
  });

  it("takes a quoted title from front matter and never reads front matter as a heading", () => {
    const { blocks, frontMatterTitle } = markdownToBlocks("---\ntitle: 'Quoted'\ntags: [x]\n---\n# H\nbody");
    expect(frontMatterTitle).toBe("Quoted");
    expect(blocks).toEqual([heading(1, "H"), para("body")]);
    expect(markdownToBlocks("---\nauthor: me\n...\nbody").frontMatterTitle).toBeUndefined();
    expect(markdownToBlocks("---\nauthor: me\n...\nbody").blocks).toEqual([para("body")]);
  });

  it("drops thematic breaks and link definitions", () => {
    expect(md("A", "", "***", "", "B", "", "[x]: https://example.com")).toEqual([para("A"), para("B")]);
  });

  it("turns links, images, autolinks, entities and hard breaks into plain text", () => {
    expect(md("![alt text](x.png) and [link](http://a) <https://b.c>")).toEqual([para("alt text and link https://b.c")]);
    expect(md("AT&amp;T &copy; x")).toEqual([para("AT&T © x")]);
    expect(md("line one  ", "line two")).toEqual([para("line one line two")]);
    expect(md("~~gone~~ and *em* and __strong__")).toEqual([para("gone and em and strong")]);
  });

  // (The old line reader took "[^1]: ..." for a link definition and lost the footnote's words.)
  it("keeps the text of footnotes", () => {
    expect(md("Claim.[^1]", "", "[^1]: The source of the claim.").map((b) => b.text).join("\n")).toContain("The source of the claim.");
  });

  it("keeps a footnote in the section where it is defined, not at the end of the document", () => {
    expect(md("# One", "Claim.[^a]", "", "[^a]: Source one.", "", "# Two", "More.")).toEqual([
      heading(1, "One"),
      para("Claim."),
      para("Source one."),
      heading(1, "Two"),
      para("More."),
    ]);
  });

  it("reads a first heading after a byte order mark", () => {
    expect(md("\uFEFF# Title", "text")).toEqual([heading(1, "Title"), para("text")]);
  });
});

describe("markdown nesting", () => {
  it("reads deep but sane nesting, and refuses nesting too deep to walk", () => {
    expect(md(`${"> ".repeat(300)}deep quote`)).toEqual([para("deep quote")]);
    // 1,000 quotes, their paragraph and its text: 1,002 levels below the root
    const tooDeep = () => md(`${"> ".repeat(1000)}x`);
    expect(tooDeep).toThrow(ParseError);
    expect(tooDeep).toThrow(/nests quotes, lists or emphasis 1002 levels deep; the limit is 512\./);
    // past the parser's own limit the depth is not measured to the end
    expect(() => md(`${"> ".repeat(100_000)}x`)).toThrow(/nests quotes, lists or emphasis at least 1024 levels deep; the limit is 512\./);
  });
});

describe("markdown through HTML (turndown)", () => {
  // turndown indents a nested list by four spaces: one level, not two (as the old line reader had it).
  it("builds headings, lists, code and tables from an HTML fragment", () => {
    const html =
      "<h1>Guide</h1><p>Intro *not emphasis* 1. text</p><h2>Steps</h2><ol><li>First</li><li>Second<ul><li>Sub</li></ul></li></ol>" +
      "<pre><code># shell comment\nrun</code></pre><table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>2</td></tr></table>";
    expect(htmlToBlocks(html, { fragment: true }).blocks).toEqual([
      heading(1, "Guide"),
      para("Intro *not emphasis* 1. text"),
      heading(2, "Steps"),
      { type: "list", text: "1. First\n2. Second\n  - Sub" },
      { type: "code", text: "```\n# shell comment\nrun\n```" },
      { type: "table", text: "| k | v |\n| --- | --- |\n| a|b | 2 |" },
    ]);
  });
});
