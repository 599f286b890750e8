import { Document, Packer, Paragraph } from "docx";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/ingest/chunk.js";
import { ParseError } from "../../src/ingest/parse/errors.js";
import { parseDocument } from "../../src/ingest/parse/index.js";
import { markdownToBlocks } from "../../src/ingest/parse/markdown.js";
import type { ParsedDocument } from "../../src/ingest/types.js";
import { makeDocx, makeImageOnlyPdf, makePdf, makeZip } from "./fixtures.js";

const utf8 = (s: string) => Buffer.from(s, "utf8");
const texts = (doc: ParsedDocument) => doc.blocks.map((b) => b.text).join("\n");

async function parseError(p: Promise<unknown>): Promise<ParseError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ParseError);
    return err as ParseError;
  }
  throw new Error("expected a ParseError");
}

describe("text", () => {
  it("splits paragraphs on blank lines and titles from the file name", async () => {
    const doc = await parseDocument(utf8("First line\nsecond line\r\n\r\n\r\nNext   paragraph.\n"), "text", "my_notes.txt");
    expect(doc.title).toBe("my notes");
    expect(doc.blocks).toEqual([
      { type: "paragraph", text: "First line\nsecond line" },
      { type: "paragraph", text: "Next   paragraph." },
    ]);
  });

  it("refuses empty and whitespace-only files", async () => {
    for (const body of ["", "   \n\n\t  \n"]) {
      const err = await parseError(parseDocument(utf8(body), "text", "empty.txt"));
      expect(err.message).toBe("The file contains no text to index.");
    }
  });
});

describe("markdown", () => {
  it("reads ATX and setext headings, lists, tables and code fences", () => {
    const md = [
      "---",
      "title: Front Matter Title",
      "---",
      "Guide",
      "=====",
      "",
      "Intro with a [link](https://example.com) and **bold** and `code`.",
      "",
      "Setup",
      "-----",
      "",
      "- one",
      "- two",
      "  - nested",
      "1. first",
      "",
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "",
      "```ts",
      "const x = 1;",
      "",
      "# not a heading",
      "```",
      "",
      "### Deep ###",
      "Text under deep.",
    ].join("\n");
    const { blocks, frontMatterTitle } = markdownToBlocks(md);
    expect(frontMatterTitle).toBe("Front Matter Title");
    expect(blocks).toEqual([
      { type: "heading", level: 1, text: "Guide" },
      { type: "paragraph", text: "Intro with a link and bold and code." },
      { type: "heading", level: 2, text: "Setup" },
      { type: "list", text: "- one\n- two\n  - nested\n1. first" },
      { type: "table", text: "| a | b |\n|---|---|\n| 1 | 2 |" },
      { type: "code", text: "```ts\nconst x = 1;\n\n# not a heading\n```" },
      { type: "heading", level: 3, text: "Deep" },
      { type: "paragraph", text: "Text under deep." },
    ]);
  });

  it("gives exact heading paths for nested headings", async () => {
    const md = [
      "# Handbook",
      "Preface text.",
      "## Install",
      "Install text.",
      "### Linux",
      "Linux text.",
      "#### Debian",
      "Debian text.",
      "### macOS",
      "Mac text.",
      "## Configure",
      "Configure text.",
      "# Appendix",
      "Appendix text.",
    ].join("\n");
    const doc = await parseDocument(utf8(md), "markdown", "handbook.md");
    expect(doc.title).toBe("Handbook");
    const chunks = chunkDocument(doc, { chunkSizeTokens: 200, chunkOverlapTokens: 20 });
    expect(chunks.map((c) => [c.text, c.headingPath])).toEqual([
      ["Preface text.", []],
      ["Install text.", ["Install"]],
      ["Linux text.", ["Install", "Linux"]],
      ["Debian text.", ["Install", "Linux", "Debian"]],
      ["Mac text.", ["Install", "macOS"]],
      ["Configure text.", ["Configure"]],
      ["Appendix text.", ["Appendix"]],
    ]);
  });
});

describe("html", () => {
  const page = `<!doctype html>
<html lang="en"><head><title>Widget Guide | Acme Docs</title><meta property="og:title" content="Widget Guide"></head>
<body>
<header><nav><a href="/">Home</a><a href="/docs">Docs</a><a href="/pricing">Pricing</a><a href="/blog">Blog</a></nav></header>
<aside class="sidebar"><ul><li><a href="/a">Sidebar link alpha</a></li><li><a href="/b">Sidebar link beta</a></li></ul></aside>
<main><article>
<h1>Widget Guide</h1>
<p>Widgets are small tools that help teams automate routine work. This guide explains how to install, configure and operate widgets safely in production.</p>
<h2>Installation</h2>
<p>Install the widget with your package manager. The installation takes about a minute and needs no administrator rights on most machines.</p>
<ul><li>Download the <a href="/pkg">package</a></li><li>Run the <strong>installer</strong></li></ul>
<h3>Requirements</h3>
<p>You need Node 20 or later and roughly fifty megabytes of free disk space for the widget cache directory.</p>
<table><thead><tr><th>System</th><th>Supported</th></tr></thead><tbody><tr><td>Linux</td><td>yes</td></tr><tr><td>Windows</td><td>no</td></tr></tbody></table>
<h2>Configuration</h2>
<p>Edit the configuration file; every setting has a sensible default, so change only what you need for your deployment.</p>
<pre><code>widget --port 8080</code></pre>
</article></main>
<footer><p>Copyright 2026 Acme Incorporated. Privacy policy. Terms of service. Cookie settings.</p></footer>
<script>window.analytics = "tracking code";</script>
</body></html>`;

  it("keeps the main content with headings, lists, tables and code, and drops boilerplate", async () => {
    const doc = await parseDocument(utf8(page), "html", "guide.html");
    expect(doc.title).toBe("Widget Guide");
    expect(doc.metadata.lang).toBe("en");
    const all = texts(doc);
    expect(all).not.toMatch(/Copyright|Privacy policy|Pricing|Sidebar link|tracking code/);
    expect(doc.blocks.filter((b) => b.type === "heading").map((b) => b.text)).toEqual(["Installation", "Requirements", "Configuration"]);
    expect(doc.blocks.find((b) => b.type === "list")?.text).toBe("- Download the package\n- Run the installer");
    expect(doc.blocks.find((b) => b.type === "table")?.text).toBe("| System | Supported |\n| --- | --- |\n| Linux | yes |\n| Windows | no |");
    expect(doc.blocks.find((b) => b.type === "code")?.text).toContain("widget --port 8080");
    const chunks = chunkDocument(doc, { chunkSizeTokens: 300, chunkOverlapTokens: 30 });
    expect(chunks.find((c) => c.text.includes("fifty megabytes"))?.headingPath).toEqual(["Installation", "Requirements"]);
  });

  it("falls back to og:title and h1 for the title", async () => {
    const og = await parseDocument(
      utf8('<html><head><meta property="og:title" content="OG Title"></head><body><p>Some body text here.</p></body></html>'),
      "html",
      "x.html",
    );
    expect(og.title).toBe("OG Title");
    const h1 = await parseDocument(utf8("<html><body><h1>Heading Title</h1><p>Body text.</p></body></html>"), "html", "x.html");
    expect(h1.title).toBe("Heading Title");
    expect(texts(h1)).toContain("Body text.");
  });

  it("refuses a page with no text", async () => {
    const err = await parseError(parseDocument(utf8("<html><body><nav><a href='/'>x</a></nav><script>1</script></body></html>"), "html", "x.html"));
    expect(err.message).toBe("The file contains no text to index.");
  });
});

describe("pdf", () => {
  it("extracts text per page with page numbers, headings and metadata title", async () => {
    const pdf = await makePdf(
      [
        { heading: "Introduction", paragraphs: ["Alpha page one talks about glaciers and their slow movement across valleys.", "A second paragraph on page one."] },
        { heading: "Methods", paragraphs: ["Beta page two describes the measurement of ice thickness with radar."] },
        { paragraphs: ["Gamma page three continues the methods with calibration details."] },
      ],
      { title: "Glacier Study" },
    );
    const doc = await parseDocument(pdf, "pdf", "study.pdf");
    expect(doc.title).toBe("Glacier Study");
    expect(doc.metadata.page_count).toBe(3);
    const pageOf = (needle: string) => doc.blocks.find((b) => b.text.includes(needle))?.page;
    expect(pageOf("Alpha page one")).toBe(1);
    expect(pageOf("Beta page two")).toBe(2);
    expect(pageOf("Gamma page three")).toBe(3);
    expect(doc.blocks.filter((b) => b.type === "heading").map((b) => [b.text, b.level, b.page])).toEqual([
      ["Introduction", 1, 1],
      ["Methods", 1, 2],
    ]);
    // Page numbers printed in the footer are not content.
    expect(doc.blocks.some((b) => /^\d+$/.test(b.text))).toBe(false);

    const chunks = chunkDocument(doc, { chunkSizeTokens: 512, chunkOverlapTokens: 0 });
    const methods = chunks.find((c) => c.text.includes("Gamma page three"));
    expect(methods?.headingPath).toEqual(["Methods"]);
    expect(methods?.metadata.pages).toEqual([2, 3]);
  });

  it("titles from the first heading when metadata has none, and joins wrapped lines", async () => {
    const long = "This sentence is long enough that the fixture wraps it over several lines of the page so the parser must join them back.";
    const doc = await parseDocument(await makePdf([{ heading: "Field Notes", paragraphs: [long] }]), "pdf", "notes.pdf");
    expect(doc.title).toBe("Field Notes");
    expect(doc.blocks.find((b) => b.type === "paragraph")?.text).toBe(long);
  });

  it("keeps short numbered chapter pages (they are not running headers)", async () => {
    const pages = [1, 2, 3].map((n) => ({ heading: `Chapter ${n}`, paragraphs: [`Finding ${n} is recorded here.`] }));
    const doc = await parseDocument(await makePdf(pages), "pdf", "chapters.pdf");
    const text = doc.blocks.map((b) => b.text).join("\n");
    for (const n of [1, 2, 3]) {
      expect(text).toContain(`Chapter ${n}`);
      expect(text).toContain(`Finding ${n} is recorded here.`);
    }
  });

  it("fails clearly when there is no text layer", async () => {
    const err = await parseError(parseDocument(await makeImageOnlyPdf(), "pdf", "scan.pdf"));
    expect(err.message).toMatch(/no extractable text.*scanned/);
  });

  it("fails clearly on a damaged PDF and on a ZIP", async () => {
    const pdf = await makePdf([{ paragraphs: ["Some text."] }]);
    const err = await parseError(parseDocument(pdf.subarray(0, 400), "pdf", "broken.pdf"));
    expect(err.message).toMatch(/not a valid PDF/);
    const zipErr = await parseError(parseDocument(makeZip({ "a.txt": "x" }), "pdf", "zip.pdf"));
    expect(zipErr.message).toMatch(/not a valid PDF/);
  });
});

describe("docx", () => {
  it("turns Word headings into headings and keeps lists and tables", async () => {
    const doc = await parseDocument(await makeDocx(), "docx", "report.docx");
    expect(doc.kind).toBe("docx");
    expect(doc.title).toBe("Quarterly Report");
    expect(doc.blocks).toEqual([
      { type: "heading", level: 1, text: "Quarterly Report" },
      { type: "paragraph", text: "Revenue grew strongly this quarter. Costs fell." },
      { type: "heading", level: 2, text: "Regional Results" },
      { type: "paragraph", text: "Europe led the growth, followed by Asia." },
      { type: "list", text: "- Europe up twelve percent\n- Asia up nine percent" },
      { type: "table", text: "| Region | Growth |\n| --- | --- |\n| Europe | 12% |\n| Asia | 9% |" },
      { type: "heading", level: 2, text: "Outlook" },
      { type: "paragraph", text: "We expect steady demand next year." },
    ]);
    const chunks = chunkDocument(doc, { chunkSizeTokens: 256, chunkOverlapTokens: 0 });
    expect(chunks.map((c) => c.headingPath)).toEqual([[], ["Regional Results"], ["Outlook"]]);
  });

  it("takes the title from document properties when there is no H1", async () => {
    const plain = new Document({ title: "Board Minutes", sections: [{ children: [new Paragraph("Only a paragraph here.")] }] });
    const doc = await parseDocument(await Packer.toBuffer(plain), "docx", "minutes.docx");
    expect(doc.title).toBe("Board Minutes");
    expect(doc.blocks).toEqual([{ type: "paragraph", text: "Only a paragraph here." }]);
  });

  it("reports a truncated DOCX as corrupt with an actionable message", async () => {
    const docx = await makeDocx();
    const err = await parseError(parseDocument(docx.subarray(0, Math.floor(docx.length * 0.6)), "docx", "broken.docx"));
    expect(err.message).toBe("The file is not a valid DOCX document (ZIP structure is corrupt). Re-save it in Word and upload again.");
  });

  it("reports a ZIP without a Word document", async () => {
    const err = await parseError(parseDocument(makeZip({ "a.txt": "x" }), "docx", "fake.docx"));
    expect(err.message).toMatch(/Word document part is missing/);
  });
});

describe("csv", () => {
  it("renders rows as header: value lines, one block per row", async () => {
    const csv = 'name,price,notes\nWidget,9.99,"small, blue"\nGadget,19.50,"line one\nline two"\n,,\n';
    const doc = await parseDocument(utf8(csv), "csv", "products.csv");
    expect(doc.title).toBe("products");
    expect(doc.metadata).toEqual({ row_count: 3, columns: ["name", "price", "notes"] });
    expect(doc.blocks).toEqual([
      { type: "table", text: "name: Widget; price: 9.99; notes: small, blue" },
      { type: "table", text: "name: Gadget; price: 19.50; notes: line one line two" },
    ]);
  });

  it("detects semicolons and tabs, and names columns when there is no header", async () => {
    const semi = await parseDocument(utf8("city;country\nParis;France\nLyon;France\n"), "csv", "cities.csv");
    expect(semi.blocks[0].text).toBe("city: Paris; country: France");
    const tsv = await parseDocument(utf8("a\tb\n1\t2\n"), "csv", "x.tsv");
    expect(tsv.blocks[0].text).toBe("a: 1; b: 2");
    const noHeader = await parseDocument(utf8("1,2\n3,4\n"), "csv", "n.csv");
    expect(noHeader.blocks.map((b) => b.text)).toEqual(["column 1: 1; column 2: 2", "column 1: 3; column 2: 4"]);
  });

  it("chunks a big CSV into full chunks of whole rows", async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `item ${i},${i * 3},category ${i % 7}`);
    const doc = await parseDocument(utf8(`name,stock,category\n${rows.join("\n")}\n`), "csv", "big.csv");
    const chunks = chunkDocument(doc, { chunkSizeTokens: 256, chunkOverlapTokens: 0 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) {
      expect(c.tokenCount).toBeLessThanOrEqual(256);
      for (const line of c.text.split("\n\n")) expect(line).toMatch(/^name: item \d+; stock: \d+; category: category \d$/);
    }
    expect(chunks.slice(0, -1).every((c) => c.tokenCount > 200)).toBe(true);
  });

  it("reports broken quoting", async () => {
    const err = await parseError(parseDocument(utf8('a,b\n"unclosed,2\n'), "csv", "bad.csv"));
    expect(err.message).toMatch(/could not be read/);
  });
});

describe("json", () => {
  it("renders key paths and arrays of objects like rows", async () => {
    const json = {
      title: "Store Catalog",
      version: 3,
      owner: { name: "Ada", contact: { email: "ada@example.com" } },
      tags: ["retail", "demo"],
      products: [
        { sku: "A1", name: "Widget", dims: { w: 2, h: 3 } },
        { sku: "B2", name: "Gadget", dims: { w: 4, h: 5 } },
      ],
    };
    const doc = await parseDocument(utf8(JSON.stringify(json, null, 2)), "json", "catalog.json");
    expect(doc.title).toBe("Store Catalog");
    expect(doc.blocks.map((b) => b.text)).toEqual([
      "title: Store Catalog\nversion: 3",
      "owner.name: Ada\nowner.contact.email: ada@example.com",
      "tags: retail, demo",
      "products[0]: sku: A1; name: Widget; dims.w: 2; dims.h: 3",
      "products[1]: sku: B2; name: Gadget; dims.w: 4; dims.h: 5",
    ]);
  });

  it("treats a top-level array of objects and JSON Lines as rows", async () => {
    const arr = await parseDocument(utf8('[{"q":"What is X?","a":"X is Y."},{"q":"Why?","a":"Because."}]'), "json", "faq.json");
    expect(arr.blocks.map((b) => b.text)).toEqual(["q: What is X?; a: X is Y.", "q: Why?; a: Because."]);
    expect(arr.metadata.item_count).toBe(2);
    const lines = await parseDocument(utf8('{"id":1,"text":"one"}\n\n{"id":2,"text":"two"}\n'), "json", "log.jsonl");
    expect(lines.blocks.map((b) => b.text)).toEqual(["id: 1; text: one", "id: 2; text: two"]);
  });

  it("reports syntax errors with a line number", async () => {
    const err = await parseError(parseDocument(utf8('{\n  "a": 1,\n  "b": \n}\n'), "json", "bad.json"));
    expect(err.message).toMatch(/not valid JSON \(syntax error near line 4\)/);
    const jl = await parseError(parseDocument(utf8('{"a":1}\n{oops}\n'), "json", "bad.jsonl"));
    expect(jl.message).toMatch(/line 2/);
  });

  it("refuses JSON without any values", async () => {
    const err = await parseError(parseDocument(utf8('{"a": null, "b": {}, "c": []}'), "json", "empty.json"));
    expect(err.message).toBe("The file contains no text to index.");
  });
});

describe("unsupported kinds", () => {
  it("explains that xlsx/pptx/epub are not supported", async () => {
    const err = await parseError(parseDocument(Buffer.from("x"), "xlsx", "a.xlsx"));
    expect(err.message).toMatch(/not supported yet/);
  });
});
