import { afterAll, describe, expect, it } from "vitest";
import { ParseError } from "../../src/ingest/parse/errors.js";
import { closeParseWorkers, idleParseWorkerCount, ParseBusyError, parseIsolated } from "../../src/ingest/parse/isolated.js";
import { PARSE_THREADS, parsePool } from "../../src/ingest/parse/parse-pool.js";
import { makeDocx, makePdf } from "./fixtures.js";

afterAll(async () => {
  await closeParseWorkers();
});

describe("parseIsolated", () => {
  it("parses a real PDF and DOCX in a worker thread", async () => {
    const pdf = await makePdf([{ heading: "Overview", paragraphs: ["Isolated parsing keeps one bad file from stopping the others."] }, { paragraphs: ["Second page."] }]);
    const doc = await parseIsolated(pdf, "pdf", "iso.pdf", { timeoutMs: 30_000, maxOldGenerationSizeMb: 256 });
    expect(doc.kind).toBe("pdf");
    expect(doc.title).toBe("Overview");
    expect(doc.blocks.find((b) => b.text.startsWith("Second page"))?.page).toBe(2);

    const docx = await parseIsolated(await makeDocx(), "docx", "iso.docx", { timeoutMs: 30_000, maxOldGenerationSizeMb: 256 });
    expect(docx.blocks.filter((b) => b.type === "heading").map((b) => b.text)).toEqual(["Quarterly Report", "Regional Results", "Outlook"]);
  });

  it("passes parse errors through as ParseError", async () => {
    const err = await parseIsolated(Buffer.from("  \n "), "text", "blank.txt", { timeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toBe("The file contains no text to index.");
  });

  it("stops a parse that runs over its time limit, and the next parse still works", async () => {
    const pdf = await makePdf(Array.from({ length: 30 }, (_, i) => ({ paragraphs: [`Page ${i + 1} text.`] })));
    const err = await parseIsolated(pdf, "pdf", "slow.pdf", { timeoutMs: 5, machineBusy: () => false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toBe("Parsing took longer than 5 ms (the limit for a file of this size) and was stopped. Split the file into smaller files and upload again.");

    const ok = await parseIsolated(Buffer.from("# Fine\n\nStill works."), "markdown", "ok.md", { timeoutMs: 30_000 });
    expect(ok.title).toBe("Fine");
  });

  it("blames an overloaded machine, not the file, for a parse that ran out of time under load (retried, not failed)", async () => {
    const pdf = await makePdf(Array.from({ length: 30 }, (_, i) => ({ paragraphs: [`Page ${i + 1} text.`] })));
    const err = await parseIsolated(pdf, "pdf", "busy.pdf", { timeoutMs: 5, machineBusy: () => true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseBusyError);
    expect(err).not.toBeInstanceOf(ParseError);
    expect((err as Error).message).toMatch(/^Parsing took longer than 5 ms \(the limit for a file of this size\) while the server was overloaded \(load [\d.]+ on \d+ cores\); it will be tried again\.$/);
  });

  // The CSV parser stops itself near the worker's heap limit (memory-guard.ts): left to V8, its
  // growing array of rows reached the limit in one failed allocation that aborted this whole
  // process, every time once the worker loaded less at start (nodejs/node#47224).
  it("stops a parse that exceeds its memory limit, and the process and its pool go on", async () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => `row ${i},value ${i * 7},a longer description for row ${i}`);
    const csv = Buffer.from(`name,value,description\n${rows.join("\n")}\n`);
    const err = await parseIsolated(csv, "csv", "huge.csv", { timeoutMs: 30_000, maxOldGenerationSizeMb: 32 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toBe("Parsing needed more than 32 MB of memory and was stopped. Split the file into smaller files and upload again.");
    const small = await parseIsolated(Buffer.from("a,b\n1,2\n"), "csv", "small.csv", { timeoutMs: 30_000, maxOldGenerationSizeMb: 32 });
    expect(small.blocks.map((b) => b.text)).toEqual(["a: 1; b: 2"]);
  });

  // Markdown's parser builds one token array for the whole file (about 34 bytes of heap per byte
  // here). With V8's default young generation (192 MB), a scavenge promoted more at once than Node
  // allows a worker past its limit, and 3 runs of 12 aborted this whole process (nodejs/node#47224);
  // the pool's workers now have a young generation an eighth of their limit (parse-pool.ts).
  it("stops Markdown that outgrows its memory limit in the worker, every time, and the process goes on", async () => {
    const sections = Array.from({ length: 80_000 }, (_, i) => `## Heading ${i}\n\nParagraph ${i} with *emphasis*, a [link](http://x.org/${i}) and \`code ${i}\`.\n`);
    const md = Buffer.from(sections.join("\n"));
    for (let attempt = 0; attempt < 4; attempt++) {
      const err = await parseIsolated(md, "markdown", "huge.md", { timeoutMs: 60_000, maxOldGenerationSizeMb: 32 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParseError);
      expect((err as Error).message).toBe("Parsing needed more than 32 MB of memory and was stopped. Split the file into smaller files and upload again.");
    }
    const small = await parseIsolated(Buffer.from("# Small\n\nIt fits."), "markdown", "small.md", { timeoutMs: 30_000, maxOldGenerationSizeMb: 32 });
    expect(small.blocks.map((b) => b.text)).toEqual(["Small", "It fits."]);
  }, 120_000);

  it("runs parses concurrently and keeps finished workers warm for the next file", async () => {
    await closeParseWorkers();
    const docs = await Promise.all(
      Array.from({ length: 3 }, (_, i) => parseIsolated(Buffer.from(`Document number ${i}.`), "text", `d${i}.txt`, { timeoutMs: 30_000 })),
    );
    expect(docs.map((d) => d.blocks[0].text)).toEqual(["Document number 0.", "Document number 1.", "Document number 2."]);
    // one worker per parse that ran at once, up to the pool's size (2 on a 2-core machine). On a
    // loaded machine the first worker can finish all three small parses while the second is still
    // starting (a few hundred ms under tsx); it joins the idle ones once it is up.
    const warm = Math.min(3, PARSE_THREADS);
    await expect.poll(idleParseWorkerCount, { timeout: 10_000 }).toBe(warm);
    await parseIsolated(Buffer.from("warm"), "text", "warm.txt", { timeoutMs: 30_000 });
    expect(idleParseWorkerCount()).toBe(warm);
    // A worker that timed out is never put back.
    const pdf = await makePdf(Array.from({ length: 20 }, (_, i) => ({ paragraphs: [`Page ${i + 1}.`] })));
    await expect(parseIsolated(pdf, "pdf", "t.pdf", { timeoutMs: 1, machineBusy: () => false })).rejects.toThrow(/took longer than 1 ms/);
    expect(idleParseWorkerCount()).toBe(warm - 1);
  });

  it("fails the document when its parser dies mid-parse, and the next parse gets a fresh worker", async () => {
    const pdf = await makePdf(Array.from({ length: 300 }, (_, i) => ({ paragraphs: [`Page ${i + 1} text.`] })));
    await parseIsolated(Buffer.from("warm up"), "text", "warm.txt", { timeoutMs: 30_000, maxOldGenerationSizeMb: 200 });
    const pool = parsePool(200);
    expect(pool.idleThreads).toBe(1);
    const parsing = parseIsolated(pdf, "pdf", "dies.pdf", { timeoutMs: 30_000, maxOldGenerationSizeMb: 200 }).catch((e: unknown) => e);
    await expect.poll(() => pool.idleThreads, { timeout: 5_000, interval: 2 }).toBe(0);
    await new Promise((r) => setTimeout(r, 200)); // the task is the worker's; now let it be parsing
    await pool.threads[0].terminate(); // as a native crash would end it
    const err = await parsing;
    expect(err).toBeInstanceOf(ParseError);
    expect((err as Error).message).toBe("The file could not be parsed (the parser stopped unexpectedly). Re-save the file and upload again.");
    const ok = await parseIsolated(Buffer.from("after the crash"), "text", "ok.txt", { timeoutMs: 30_000, maxOldGenerationSizeMb: 200 });
    expect(ok.blocks[0].text).toBe("after the crash");
  });
});
