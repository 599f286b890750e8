import { describe, expect, it } from "vitest";
import {
  SUPPORTED_EXTENSIONS,
  SUPPORTED_FILE_TYPES_TEXT,
  detectFileKind,
  safeFileName,
  sniffFile,
  unsupportedFileMessage,
} from "../../src/ingest/sniff.js";
import { makeDocx, makePdf, makeZip } from "./fixtures.js";

const utf8 = (s: string) => Buffer.from(s, "utf8");

describe("detectFileKind: binary formats come from the bytes", () => {
  it("accepts a real PDF and a real DOCX", async () => {
    const pdf = await makePdf([{ paragraphs: ["Hello PDF."] }]);
    const docx = await makeDocx();
    expect(await detectFileKind(pdf, "report.pdf")).toBe("pdf");
    expect(await detectFileKind(docx, "report.docx")).toBe("docx");
    // The bytes win over a wrong name for unambiguous binary formats.
    expect(await detectFileKind(pdf, "report.txt")).toBe("pdf");
  });

  it("refuses a ZIP renamed to .pdf, and says why", async () => {
    const zip = makeZip({ "a.txt": "hello", "b.txt": "world" });
    expect(await detectFileKind(zip, "report.pdf")).toBeNull();
    const res = await sniffFile(zip, "report.pdf");
    expect(res.kind).toBeNull();
    if (res.kind === null) expect(res.reason).toMatch(/ZIP archive/);
  });

  it("requires word/document.xml inside a .docx", async () => {
    const zip = makeZip({ "[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>" });
    expect(await detectFileKind(zip, "fake.docx")).toBeNull();
    const plain = makeZip({ "readme.txt": "hi" });
    const res = await sniffFile(plain, "fake.docx");
    expect(res).toEqual({ kind: null, reason: expect.stringMatching(/no Word document/) });
  });

  it("recognises spreadsheets and presentations as unsupported with a hint", async () => {
    const xlsx = makeZip({ "[Content_Types].xml": "<Types/>", "xl/workbook.xml": "<workbook/>" });
    const res = await sniffFile(xlsx, "sheet.xlsx");
    expect(res.kind).toBeNull();
    if (res.kind === null) expect(res.reason).toMatch(/CSV/);
  });

  it("accepts a truncated .docx so the parser can report the corruption", async () => {
    const docx = await makeDocx();
    const truncated = docx.subarray(0, Math.floor(docx.length / 2));
    expect(await detectFileKind(truncated, "broken.docx")).toBe("docx");
  });

  it("refuses binary junk and images whatever the name", async () => {
    const junk = Buffer.alloc(4096);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + 13) % 256;
    expect(await detectFileKind(junk, "notes.txt")).toBeNull();
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const res = await sniffFile(Buffer.concat([png, Buffer.alloc(64)]), "photo.md");
    expect(res.kind).toBeNull();
    if (res.kind === null) expect(res.reason).toMatch(/PNG/);
  });

  it("refuses an empty or text file named .pdf/.docx", async () => {
    expect(await detectFileKind(Buffer.alloc(0), "empty.pdf")).toBeNull();
    expect(await detectFileKind(utf8("just text"), "fake.pdf")).toBeNull();
    expect(await detectFileKind(utf8("just text"), "fake.docx")).toBeNull();
  });
});

describe("detectFileKind: text formats", () => {
  it("decides by extension plus content", async () => {
    expect(await detectFileKind(utf8("# Title\n\nText"), "a.md")).toBe("markdown");
    expect(await detectFileKind(utf8("<html><body><p>x</p></body></html>"), "a.htm")).toBe("html");
    expect(await detectFileKind(utf8("a,b\n1,2\n"), "data.csv")).toBe("csv");
    expect(await detectFileKind(utf8("a\tb\n1\t2\n"), "data.tsv")).toBe("csv");
    expect(await detectFileKind(utf8('{"a": 1}'), "data.json")).toBe("json");
    expect(await detectFileKind(utf8('{"a": 1}\n{"a": 2}\n'), "data.jsonl")).toBe("json");
    expect(await detectFileKind(utf8("plain words"), "notes.txt")).toBe("text");
  });

  it("uses content when the extension is missing or generic", async () => {
    expect(await detectFileKind(utf8("<!DOCTYPE html><html><p>x</p></html>"), "page")).toBe("html");
    expect(await detectFileKind(utf8("<!doctype html><p>x</p>"), "saved.txt")).toBe("html");
    expect(await detectFileKind(utf8("some notes"), "README")).toBe("text");
    expect(await detectFileKind(utf8("# hi"), "upload", "text/markdown")).toBe("markdown");
    expect(await detectFileKind(utf8('{"a":1}'), "blob", "application/json")).toBe("json");
    // A .json that is not JSON-shaped is still indexable as text.
    expect(await detectFileKind(utf8("not json at all"), "x.json")).toBe("text");
  });

  it("accepts empty text files (the parser reports 'no text') and UTF-8 with BOM", async () => {
    expect(await detectFileKind(Buffer.alloc(0), "empty.txt")).toBe("text");
    expect(await detectFileKind(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8("héllo")]), "bom.txt")).toBe("text");
  });

  it("refuses non-UTF-8 text, NUL bytes and known unsupported names", async () => {
    expect(await detectFileKind(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x61]), "latin1.txt")).toBeNull();
    expect(await detectFileKind(Buffer.from("ab\u0000cd"), "nul.txt")).toBeNull();
    expect(await detectFileKind(utf8("<svg xmlns='http://www.w3.org/2000/svg'/>"), "logo.svg")).toBeNull();
    expect(await detectFileKind(utf8("{\\rtf1 hello}"), "old.rtf")).toBeNull();
  });

  it("explains refused text encodings", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hello", "utf16le")]);
    expect(await sniffFile(utf16, "notes.txt")).toEqual({ kind: null, reason: "the text is UTF-16 encoded; save it as UTF-8" });
    expect(await sniffFile(Buffer.from([0x63, 0x61, 0x66, 0xe9]), "latin1.txt")).toEqual({
      kind: null,
      reason: "the text is not UTF-8 encoded; save it as UTF-8",
    });
  });

  it("trusts clean text under a text extension even if it starts like a magic number", async () => {
    expect(await detectFileKind(utf8("ID3 tags are explained below.\n\nMore text."), "id3-notes.md")).toBe("markdown");
    expect(await detectFileKind(utf8("MZ is the DOS header magic."), "notes.txt")).toBe("text");
  });

  it("exports the supported types for 415 messages", () => {
    expect(SUPPORTED_EXTENSIONS).toContain(".pdf");
    expect(SUPPORTED_EXTENSIONS).toContain(".docx");
    expect(SUPPORTED_FILE_TYPES_TEXT).toMatch(/PDF.*Word.*HTML.*Markdown.*CSV.*JSON/);
    const msg = unsupportedFileMessage("../evil\u202Egpj.exe", "the content is EXE data");
    expect(msg).toContain('"evilgpj.exe" is not a supported file type (the content is EXE data). Supported: PDF');
  });
});

describe("safeFileName", () => {
  it("strips directories on both separators", () => {
    expect(safeFileName("../../etc/passwd")).toBe("passwd");
    expect(safeFileName("..\\..\\windows\\win.ini")).toBe("win.ini");
    expect(safeFileName("/abs/path/report.pdf")).toBe("report.pdf");
    expect(safeFileName("dir/")).toBe("file");
  });

  it("removes control and bidi characters and odd punctuation", () => {
    expect(safeFileName("inv\u0000oice\u0007.pdf")).toBe("invoice.pdf");
    expect(safeFileName("photo\u202Egpj.exe")).toBe("photogpj.exe");
    expect(safeFileName('a<b>c:"d"|e?f*.txt')).toBe("a_b_c__d__e_f_.txt");
    expect(safeFileName("  spaced   out  .md ")).toBe("spaced out .md");
  });

  it("normalises Unicode to NFC and keeps non-Latin names", () => {
    const nfd = "Cafe\u0301 menu.pdf";
    expect(safeFileName(nfd)).toBe("Caf\u00e9 menu.pdf");
    expect(safeFileName(nfd).normalize("NFC")).toBe(safeFileName(nfd));
    expect(safeFileName("報告書 2024.docx")).toBe("報告書 2024.docx");
    expect(safeFileName("😀 emoji.txt")).toBe("😀 emoji.txt");
  });

  it("never returns empty, hidden or reserved names", () => {
    expect(safeFileName("")).toBe("file");
    expect(safeFileName("..")).toBe("file");
    expect(safeFileName("...")).toBe("file");
    expect(safeFileName("\u0000\u0001")).toBe("file");
    expect(safeFileName(".env")).toBe("env");
    expect(safeFileName("CON.txt")).toBe("_CON.txt");
  });

  it("limits length, keeps the extension and never splits a surrogate pair", () => {
    const long = `${"😀".repeat(300)}.pdf`;
    const safe = safeFileName(long);
    expect(Array.from(safe).length).toBeLessThanOrEqual(180);
    expect(safe.endsWith(".pdf")).toBe(true);
    expect(safe).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(safeFileName("x".repeat(1000)).length).toBe(180);
  });
});
