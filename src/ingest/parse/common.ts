// Small helpers every parser shares: the file-name fallback title and the "no text" rule.
import { safeFileName } from "../filename.js";
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { NO_TEXT_MESSAGE, ParseError } from "./errors.js";

export function titleFromFilename(filename: string): string {
  const base = safeFileName(filename);
  const dot = base.lastIndexOf(".");
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.replace(/[_]+/g, " ").trim() || base;
}

export function cleanInline(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Drops blocks without text and refuses a document that has none left. */
export function finishDocument(doc: ParsedDocument): ParsedDocument {
  const blocks: ParsedBlock[] = doc.blocks.filter((b) => b.text.trim().length > 0);
  if (blocks.length === 0) throw new ParseError(NO_TEXT_MESSAGE);
  return { ...doc, title: cleanInline(doc.title) || "Untitled", blocks };
}
