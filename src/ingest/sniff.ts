// Upload type detection. The name says what the user meant, the bytes say what the file is; a
// file is accepted only when both agree well enough to parse it (design §7: sniffed from bytes,
// not only the name). Binary formats are decided by their signature (file-type), text formats by
// being UTF-8 text plus the extension and a look at the content.
import { fileTypeFromBuffer } from "file-type";
import { fileExtension, safeFileName } from "./filename.js";
import { controlCharRatio, decodeUtf8Text } from "./parse/decode.js";
import type { FileKind } from "./types.js";
import { isZip, scanLocalEntryNames, zipEntryNames } from "./zip.js";

export { fileExtension, safeFileName } from "./filename.js";

const EXTENSION_KINDS: Record<string, FileKind> = {
  ".pdf": "pdf",
  ".docx": "docx",
  ".html": "html",
  ".htm": "html",
  ".xhtml": "html",
  ".md": "markdown",
  ".markdown": "markdown",
  ".mdown": "markdown",
  ".mkd": "markdown",
  ".txt": "text",
  ".text": "text",
  ".log": "text",
  ".rst": "text",
  ".adoc": "text",
  ".csv": "csv",
  ".tsv": "csv",
  ".json": "json",
  ".jsonl": "json",
  ".ndjson": "json",
};

export const SUPPORTED_EXTENSIONS: readonly string[] = Object.freeze(Object.keys(EXTENSION_KINDS));

/** For 415 details and GET /capabilities. */
export const SUPPORTED_FILE_TYPES: readonly string[] = Object.freeze([
  "PDF with a text layer (.pdf)",
  "Word (.docx)",
  "HTML (.html, .htm, .xhtml)",
  "Markdown (.md, .markdown)",
  "plain text in UTF-8 (.txt and other text files)",
  "CSV/TSV (.csv, .tsv)",
  "JSON (.json, .jsonl, .ndjson)",
]);

export const SUPPORTED_FILE_TYPES_TEXT = SUPPORTED_FILE_TYPES.join(", ");

export type SniffResult = { kind: FileKind } | { kind: null; reason: string };

// Formats we recognise by name but cannot parse: say so precisely instead of "unknown type".
const KNOWN_UNSUPPORTED: Record<string, string> = {
  ".doc": "legacy Word .doc files are not supported; save it as .docx",
  ".xls": "Excel files are not supported; export the sheet as CSV",
  ".xlsx": "Excel files are not supported; export the sheet as CSV",
  ".ppt": "PowerPoint files are not supported; export it as PDF",
  ".pptx": "PowerPoint files are not supported; export it as PDF",
  ".epub": "EPUB files are not supported; convert it to PDF or HTML",
  ".rtf": "RTF files are not supported; save it as .docx or PDF",
  ".odt": "OpenDocument files are not supported; save it as .docx or PDF",
  ".svg": "images are not supported",
  ".xml": "XML files are not supported; convert the content to text, JSON or HTML",
};

// Text MIME types file-type reports for some text formats; those are judged as text below.
const TEXTUAL_DETECTIONS = new Set(["application/xml", "text/xml", "text/calendar", "text/vtt"]);

/** How many control characters a "text" file may contain before we call it binary. */
const MAX_CONTROL_RATIO = 0.01;

/** Detects the kind and, when refused, a reason that can go into a 415 detail. */
export async function sniffFile(bytes: Buffer, filename: string, declaredMime?: string): Promise<SniffResult> {
  const ext = fileExtension(filename);
  const detected = bytes.length > 0 ? await fileTypeFromBuffer(bytes) : undefined;

  if (detected?.ext === "pdf") return { kind: "pdf" };
  if (isZip(bytes)) return sniffZip(bytes, ext);
  // Checked before trusting file-type further: FF FE also looks like an MPEG audio frame.
  if (hasUtf16Bom(bytes)) return { kind: null, reason: "the text is UTF-16 encoded; save it as UTF-8" };

  const expected = EXTENSION_KINDS[ext];
  if (expected === "pdf" || expected === "docx") {
    if (detected) return { kind: null, reason: `the name ends in ${ext} but the content is ${describeDetected(detected.ext)}` };
    return {
      kind: null,
      reason:
        bytes.length === 0
          ? `the file is empty, not a ${expected.toUpperCase()} document`
          : `the name ends in ${ext} but the content is not a ${expected.toUpperCase()} document`,
    };
  }
  if (KNOWN_UNSUPPORTED[ext]) return { kind: null, reason: KNOWN_UNSUPPORTED[ext] };

  const text = decodeUtf8Text(bytes);
  const isText = text !== null && controlCharRatio(text) <= MAX_CONTROL_RATIO;
  // Magic numbers are short; a text file may start with "MZ" or "ID3". Clean UTF-8 text under a
  // text extension is text; anything else file-type recognises is that binary format.
  if (detected && !TEXTUAL_DETECTIONS.has(detected.mime) && !(isText && expected !== undefined)) {
    return { kind: null, reason: `the content is ${describeDetected(detected.ext)}, not a supported type` };
  }
  if (!isText) return { kind: null, reason: textRefusal(bytes) };
  return { kind: textKind(text, ext, declaredMime) };
}

function hasUtf16Bom(bytes: Buffer): boolean {
  return bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
}

function textRefusal(bytes: Buffer): string {
  const head = bytes.subarray(0, 64 * 1024);
  if (head.includes(0)) return "the content is binary, not text";
  return "the text is not UTF-8 encoded; save it as UTF-8";
}

export async function detectFileKind(bytes: Buffer, filename: string, declaredMime?: string): Promise<FileKind | null> {
  return (await sniffFile(bytes, filename, declaredMime)).kind;
}

/** The 415 detail for a refused upload. */
export function unsupportedFileMessage(filename: string, reason?: string): string {
  const why = reason ? ` (${reason})` : "";
  return `"${safeFileName(filename)}" is not a supported file type${why}. Supported: ${SUPPORTED_FILE_TYPES_TEXT}.`;
}

function sniffZip(bytes: Buffer, ext: string): SniffResult {
  const entries = zipEntryNames(bytes);
  const names = entries ?? scanLocalEntryNames(bytes);
  if (names.includes("word/document.xml")) return { kind: "docx" };
  // A truncated .docx has no central directory; if what is left still looks like a Word file,
  // accept it so the DOCX parser can tell the user the file is corrupt (more useful than a 415).
  if (!entries && ext === ".docx" && names.some((n) => n === "[Content_Types].xml" || n.startsWith("word/"))) {
    return { kind: "docx" };
  }
  if (names.includes("xl/workbook.xml")) return { kind: null, reason: KNOWN_UNSUPPORTED[".xlsx"] };
  if (names.includes("ppt/presentation.xml")) return { kind: null, reason: KNOWN_UNSUPPORTED[".pptx"] };
  if (names.includes("mimetype") && names.some((n) => n.endsWith(".opf"))) {
    return { kind: null, reason: KNOWN_UNSUPPORTED[".epub"] };
  }
  if (ext === ".docx") return { kind: null, reason: "the name ends in .docx but the ZIP archive holds no Word document" };
  if (ext === ".pdf") return { kind: null, reason: "the name ends in .pdf but the content is a ZIP archive" };
  return { kind: null, reason: "ZIP archives are not supported; upload the files inside it" };
}

function describeDetected(ext: string): string {
  return `${ext.toUpperCase()} data`;
}

function textKind(text: string, ext: string, declaredMime?: string): FileKind {
  const head = text.slice(0, 4096).trimStart().toLowerCase();
  const byExt = EXTENSION_KINDS[ext];
  if (byExt === "json") return looksLikeJson(head) ? "json" : "text";
  if (byExt === "html") return "html";
  if (byExt === "markdown" || byExt === "csv") return byExt;
  // .txt, unknown or no extension: the content (and the declared type, as a hint) decides.
  if (looksLikeHtml(head)) return "html";
  const mime = declaredMime?.split(";")[0]?.trim().toLowerCase();
  if (mime === "text/markdown" || mime === "text/x-markdown") return "markdown";
  if (byExt === undefined) {
    if ((mime === "application/json" || mime === "application/x-ndjson") && looksLikeJson(head)) return "json";
    if (mime === "text/csv" || mime === "text/tab-separated-values") return "csv";
  }
  return "text";
}

function looksLikeHtml(head: string): boolean {
  return head.startsWith("<!doctype html") || head.startsWith("<html") || /^<\?xml[^>]*>\s*<!doctype html/.test(head);
}

function looksLikeJson(head: string): boolean {
  return head.startsWith("{") || head.startsWith("[");
}
