// Content type -> the format handed to the sink. Types the ingest pipeline cannot parse are skipped.

import type { PageFormat } from "./types.js";

const DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

export function mimeType(contentType: string | null): string {
  return (contentType ?? "").split(";")[0].trim().toLowerCase();
}

/**
 * Servers often label downloads application/octet-stream or nothing at all, so those are sniffed
 * from the first bytes and the URL's extension.
 */
export function detectFormat(contentType: string | null, url: string, body: Buffer): PageFormat | null {
  const type = mimeType(contentType);
  let path = "";
  try {
    path = new URL(url).pathname.toLowerCase();
  } catch {
    // keep "" - extension hints are optional
  }
  const isMdPath = /\.(md|markdown|mdx)$/.test(path);
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "text/markdown" || type === "text/x-markdown") return "markdown";
  if (type === "application/pdf" || type === "application/x-pdf") return "pdf";
  if (type === DOCX_MIME) return "docx";
  if (type === "text/plain") return isMdPath ? "markdown" : "text";
  if (type === "" || type === "application/octet-stream" || type === "binary/octet-stream" || type === "application/zip") {
    const head = body.subarray(0, 512).toString("latin1");
    if (head.startsWith("%PDF-")) return "pdf";
    if (head.startsWith("PK\u0003\u0004") && path.endsWith(".docx")) return "docx";
    if (type === "application/zip") return null;
    const text = head.trimStart().toLowerCase();
    if (text.startsWith("<!doctype html") || text.startsWith("<html")) return "html";
    if (isMdPath) return "markdown";
    if (path.endsWith(".txt")) return "text";
  }
  return null;
}
