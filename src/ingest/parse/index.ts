// Entry point of the parse stage: bytes of a sniffed file -> ParsedDocument. Anything a parser
// throws that is not already a ParseError is wrapped, so callers only ever see ParseError with
// a message meant for the user (the original error stays available as `cause`).
import type { FileKind, ParsedDocument } from "../types.js";
import { ParseError } from "./errors.js";

export { ParseError, isParseError } from "./errors.js";

const LABELS: Record<FileKind, string> = {
  text: "text",
  markdown: "Markdown",
  html: "HTML",
  pdf: "PDF",
  docx: "DOCX",
  csv: "CSV",
  json: "JSON",
  xlsx: "Excel (.xlsx)",
  pptx: "PowerPoint (.pptx)",
  epub: "EPUB",
};

// Parsers are imported on first use: pdf.js, mammoth and the DOM stack take a while to load,
// and a fresh parse worker should only pay for the format it parses.
async function dispatch(bytes: Buffer, kind: FileKind, filename: string): Promise<ParsedDocument> {
  switch (kind) {
    case "text":
      return (await import("./text.js")).parseText(bytes, filename);
    case "markdown":
      return (await import("./markdown.js")).parseMarkdown(bytes, filename);
    case "html":
      return (await import("./html.js")).parseHtml(bytes, filename);
    case "pdf":
      return (await import("./pdf.js")).parsePdf(bytes, filename);
    case "docx":
      return (await import("./docx.js")).parseDocx(bytes, filename);
    case "csv":
      return (await import("./csv.js")).parseCsv(bytes, filename);
    case "json":
      return (await import("./json.js")).parseJson(bytes, filename);
    case "xlsx":
    case "pptx":
    case "epub":
      throw new ParseError(`${LABELS[kind]} files are not supported yet. Export the content as PDF or CSV and upload that.`);
  }
}

export async function parseDocument(bytes: Buffer, kind: FileKind, filename: string): Promise<ParsedDocument> {
  try {
    return await dispatch(bytes, kind, filename);
  } catch (err) {
    if (err instanceof ParseError) throw err;
    if (err instanceof RangeError && /call stack|memory|Invalid (string|array) length/i.test(err.message)) {
      throw new ParseError(`The ${LABELS[kind]} file is too large or too deeply nested to parse. Split it into smaller files.`, { cause: err });
    }
    throw new ParseError(`The ${LABELS[kind]} file could not be read. Check that it opens correctly, re-save it and upload again.`, {
      cause: err,
    });
  }
}
