// Structure limits: pathological files fail at once with the limit named, real ones pass.
import { describe, expect, it } from "vitest";
import { checkHtmlShape, htmlShape, LIMITS, parseTimeoutMs } from "../../src/ingest/parse/limits.js";
import { parseDocument } from "../../src/ingest/parse/index.js";
import { ParseError } from "../../src/ingest/parse/errors.js";

const nested = (n: number) => `<html><body>${"<div>".repeat(n)}deep${"</div>".repeat(n)}</body></html>`;

describe("htmlShape", () => {
  it("measures nesting of elements that really nest", () => {
    expect(htmlShape(nested(300)).maxDepth).toBe(300);
    expect(htmlShape("<div><section><span>x</span></section><p>y</div>")).toEqual({ maxDepth: 3, elements: 4 });
  });

  it("does not count void elements, implied end tags, self-closing tags or markup inside scripts", () => {
    const html = `<ul>${"<li>item".repeat(5000)}</ul><p>${"<br><img src=a.png><p>para".repeat(2000)}<svg><path d="M0"/></svg>` +
      `<script>const t = "${"<div>".repeat(1000)}";</script><!-- ${"<div>".repeat(1000)} -->`;
    expect(htmlShape(html).maxDepth).toBeLessThanOrEqual(2);
  });

  it("closes elements left open when an ancestor closes", () => {
    expect(htmlShape(`${"<div><span>".repeat(10)}${"</div>".repeat(10)}<div></div>`).maxDepth).toBe(20);
  });
});

describe("checkHtmlShape", () => {
  it("refuses HTML nested past the limit, naming it", () => {
    expect(() => checkHtmlShape(nested(LIMITS.htmlDepth + 1))).toThrow(
      new ParseError(
        `The HTML document nests elements ${LIMITS.htmlDepth + 1} levels deep; the limit is ${LIMITS.htmlDepth}. Simplify its structure (or save it as plain text) and upload again.`,
      ),
    );
    expect(() => checkHtmlShape(nested(LIMITS.htmlDepth))).not.toThrow();
  });

  it("refuses HTML with more elements than the limit", () => {
    expect(() => checkHtmlShape("<br>".repeat(LIMITS.htmlElements + 1))).toThrow(/elements; the limit is 200,000/);
  });
});

describe("parsers apply the limits before the expensive steps", () => {
  it("fails a 250 KB file of 50,000 nested divs in well under a second", async () => {
    // CPU time, not wall time: the claim is about work done, and a busy machine stretches the clock
    const cpu = process.cpuUsage();
    await expect(parseDocument(Buffer.from(nested(50_000)), "html", "deep.html")).rejects.toThrow(/50000 levels deep; the limit is 256/);
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1000).toBeLessThan(2_000);
  });

  it("refuses a JSON document with too many values and a CSV with too many columns", async () => {
    const wide = `${Array.from({ length: LIMITS.csvColumns + 1 }, (_, i) => `c${i}`).join(",")}\n${"1,".repeat(LIMITS.csvColumns)}1\n`;
    await expect(parseDocument(Buffer.from(wide), "csv", "wide.csv")).rejects.toThrow(/2,001 columns; the limit is 2,000/);
    const many = JSON.stringify(Array.from({ length: LIMITS.jsonValues }, () => 0));
    await expect(parseDocument(Buffer.from(many), "json", "many.json")).rejects.toThrow(/values; the limit is 2,000,000/);
  });
});

describe("parseTimeoutMs", () => {
  it("gives small files a few seconds and large ones time in proportion, capped", () => {
    expect(parseTimeoutMs(250 * 1024)).toBeLessThan(16_000);
    expect(parseTimeoutMs(10 * 1024 * 1024)).toBe(55_000);
    expect(parseTimeoutMs(50 * 1024 * 1024)).toBe(120_000);
  });
});
