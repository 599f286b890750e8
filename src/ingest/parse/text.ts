// Plain text: paragraphs are separated by blank lines. Single line breaks inside a paragraph are
// kept, because in text files they are often meaningful (addresses, poems, logs).
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { ParseError } from "./errors.js";

export function textToBlocks(text: string): ParsedBlock[] {
  return normalizeText(text)
    .split(/\n[ \t]*\n+/)
    .map((p) => p.split("\n").map((l) => l.replace(/[ \t]+$/, "")).join("\n").trim())
    .filter((p) => p.length > 0)
    .map((p) => ({ type: "paragraph" as const, text: p }));
}

export function parseText(bytes: Buffer, filename: string): ParsedDocument {
  const text = decodeUtf8Text(bytes);
  if (text === null) throw new ParseError("The file is not UTF-8 text. Save it with UTF-8 encoding and upload again.");
  return finishDocument({ kind: "text", title: titleFromFilename(filename), blocks: textToBlocks(text), metadata: {} });
}
