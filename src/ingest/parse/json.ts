// JSON -> text. Objects become "key.path: value" lines (one block per top-level key, so related
// values chunk together); arrays of objects become one row-like block per element, the way CSV
// rows are rendered. JSON Lines files (.jsonl/.ndjson) are arrays of their lines.
import type { ParsedBlock, ParsedDocument } from "../types.js";
import { cleanInline, finishDocument, titleFromFilename } from "./common.js";
import { decodeUtf8Text, normalizeText } from "./decode.js";
import { ParseError } from "./errors.js";
import { LIMITS, checkCount } from "./limits.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const MAX_DEPTH = 64;

function isObject(v: Json): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isRowArray(v: Json): v is JsonObject[] {
  return Array.isArray(v) && v.length > 0 && v.filter(isObject).length >= v.length * 0.8;
}

function scalarText(v: Json): string | undefined {
  if (v === null) return undefined;
  if (typeof v === "string") return cleanInline(v) || undefined;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
}

function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** "path: value" pairs of a value, depth-first, in document order. */
function flatten(v: Json, path: string, out: string[], depth = 0): void {
  const scalar = scalarText(v);
  if (scalar !== undefined) {
    out.push(path ? `${path}: ${scalar}` : scalar);
    return;
  }
  if (depth >= MAX_DEPTH) return;
  if (Array.isArray(v)) {
    if (v.every((x) => !Array.isArray(x) && !isObject(x))) {
      const items = v.map(scalarText).filter((s): s is string => s !== undefined);
      if (items.length > 0) out.push(path ? `${path}: ${items.join(", ")}` : items.join(", "));
      return;
    }
    v.forEach((x, i) => flatten(x, `${path}[${i}]`, out, depth + 1));
    return;
  }
  if (isObject(v)) for (const [k, x] of Object.entries(v)) flatten(x, joinPath(path, k), out, depth + 1);
}

function rowBlocks(rows: JsonObject[], path: string): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  rows.forEach((row, i) => {
    const pairs: string[] = [];
    flatten(row, "", pairs);
    if (pairs.length === 0) return;
    const prefix = path ? `${path}[${i}]: ` : "";
    blocks.push({ type: "table", text: prefix + pairs.join("; ") });
  });
  return blocks;
}

export function jsonToBlocks(value: Json): ParsedBlock[] {
  if (isRowArray(value)) return rowBlocks(value, "");
  if (!isObject(value)) {
    const lines: string[] = [];
    flatten(value, "", lines);
    return lines.length > 0 ? [{ type: "paragraph", text: lines.join("\n") }] : [];
  }
  const blocks: ParsedBlock[] = [];
  let scalars: string[] = [];
  const flushScalars = () => {
    if (scalars.length > 0) blocks.push({ type: "paragraph", text: scalars.join("\n") });
    scalars = [];
  };
  for (const [key, v] of Object.entries(value)) {
    if (isRowArray(v)) {
      flushScalars();
      blocks.push(...rowBlocks(v, key));
    } else if (isObject(v) || Array.isArray(v)) {
      flushScalars();
      const lines: string[] = [];
      flatten(v, key, lines);
      if (lines.length > 0) blocks.push({ type: "paragraph", text: lines.join("\n") });
    } else {
      const s = scalarText(v);
      if (s !== undefined) scalars.push(`${key}: ${s}`);
    }
  }
  flushScalars();
  return blocks;
}

/**
 * Offset of the first syntax error. V8's JSON.parse messages only sometimes carry a position,
 * and "near line N" is what lets a user find the problem in a big file.
 */
export function jsonErrorOffset(s: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const ws = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++;
  };
  const literal = (word: string) => (s.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < s.length && s[i] !== '"') {
      if (s.charCodeAt(i) < 0x20) fail();
      i += s[i] === "\\" ? 2 : 1;
    }
    if (i >= s.length) fail();
    i++;
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(s.slice(i, i + 400));
    if (!m) return fail();
    i += m[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 5000) fail();
    ws();
    const c = s[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      if (s[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === "{") {
          ws();
          if (s[i] !== '"') fail();
          string();
          ws();
          if (s[i] !== ":") fail();
          i++;
        }
        value(depth + 1);
        ws();
        if (s[i] === ",") {
          i++;
          continue;
        }
        if (s[i] === close) {
          i++;
          return;
        }
        fail();
      }
    }
    if (c === '"') return string();
    if (c === "-" || (c >= "0" && c <= "9")) return number();
    if (c === "t") return void literal("true");
    if (c === "f") return void literal("false");
    if (c === "n") return void literal("null");
    fail();
  };
  try {
    value(0);
    ws();
    return i < s.length ? i : -1;
  } catch (at) {
    return typeof at === "number" ? at : -1;
  }
}

/** Values in a parsed document (objects, arrays and scalars), counted without recursion up to `stopAt`. */
function countValues(root: Json, stopAt: number): number {
  let n = 0;
  const stack: Json[] = [root];
  while (stack.length > 0 && n < stopAt) {
    const v = stack.pop()!;
    n++;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (isObject(v)) for (const x of Object.values(v)) stack.push(x);
  }
  return n;
}

function lineOf(text: string, position: number): number {
  let line = 1;
  for (let i = 0; i < position && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function parseJsonText(text: string, jsonLines: boolean): Json {
  const tryLines = () => {
    const lines = text.split("\n");
    const values: Json[] = [];
    lines.forEach((l, i) => {
      if (!l.trim()) return;
      try {
        values.push(JSON.parse(l) as Json);
      } catch {
        throw new ParseError(`The JSON Lines file has invalid JSON on line ${i + 1}. Fix that line and upload again.`);
      }
    });
    return values;
  };
  if (jsonLines) return tryLines();
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(message)?.[1];
    const offset = pos !== undefined ? Number(pos) : jsonErrorOffset(text);
    const where = offset >= 0 ? ` near line ${lineOf(text, offset)}` : "";
    throw new ParseError(`The file is not valid JSON (syntax error${where}). Fix the syntax and upload again.`, { cause: err });
  }
}

export function parseJson(bytes: Buffer, filename: string): ParsedDocument {
  const raw = decodeUtf8Text(bytes);
  if (raw === null) throw new ParseError("The JSON file is not UTF-8 text. Save it with UTF-8 encoding and upload again.");
  const text = normalizeText(raw);
  const jsonLines = /\.(jsonl|ndjson)$/i.test(filename);
  const value = parseJsonText(text, jsonLines);
  checkCount(countValues(value, LIMITS.jsonValues + 1), LIMITS.jsonValues, "values", "JSON");
  const topTitle = isObject(value) ? [value.title, value.name].map(scalarText).find((t) => t && t.length <= 200) : undefined;
  return finishDocument({
    kind: "json",
    title: topTitle ?? titleFromFilename(filename),
    blocks: jsonToBlocks(value),
    metadata: Array.isArray(value) ? { item_count: value.length } : {},
  });
}
