// Sentence and word segmentation for splitting oversized blocks. A hand-written scanner rather
// than Intl.Segmenter: it is several times faster on long texts and lets us keep decimals,
// initials and common abbreviations ("e.g.", "Fig.", "et al.") inside their sentence.

export interface Segment {
  text: string;
  /** whitespace that separated this segment from the previous one: "", " " or "\n" */
  sep: string;
}

const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "al", "fig", "figs",
  "eq", "eqs", "no", "nos", "vol", "pp", "ca", "approx", "inc", "ltd", "co", "corp", "dept", "univ",
  "ref", "refs", "cf", "resp", "sec", "ch", "art", "op", "ed", "eds",
]);

const TERMINATORS = ".!?…";
const CJK_TERMINATORS = "。！？";
const CLOSERS = "\"'”’)]»」』";

function isSpace(ch: string | undefined): boolean {
  return ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\u00a0" || ch === "\u3000";
}

function wordBefore(text: string, end: number): string {
  let start = end;
  while (start > 0 && !isSpace(text[start - 1]) && text[start - 1] !== "(") start--;
  return text.slice(start, end);
}

/** Whether a "." at `dot` ends an abbreviation or an initial rather than a sentence. */
function isAbbreviation(text: string, dot: number): boolean {
  const word = wordBefore(text, dot);
  if (word.length === 1 && /\p{Lu}/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase());
}

function sepOf(ws: string): string {
  if (ws.length === 0) return "";
  return ws.includes("\n") ? "\n" : " ";
}

/** Sentences (and lines: a newline always ends a segment). Joining text+sep restores the text up to whitespace. */
export function splitSentences(text: string): Segment[] {
  const out: Segment[] = [];
  let start = 0;
  let pendingSep = "";
  const n = text.length;
  const push = (end: number, next: number) => {
    const piece = text.slice(start, end);
    if (piece.trim().length > 0) {
      out.push({ text: piece.trim(), sep: out.length === 0 ? "" : pendingSep });
      pendingSep = sepOf(text.slice(end, next));
    } else if (out.length > 0) {
      pendingSep = sepOf(pendingSep + text.slice(start, next));
    }
    start = next;
  };
  let i = 0;
  while (i < n) {
    const ch = text[i];
    if (ch === "\n") {
      let j = i;
      while (j < n && isSpace(text[j])) j++;
      push(i, j);
      i = j;
      continue;
    }
    if (CJK_TERMINATORS.includes(ch)) {
      let j = i + 1;
      while (j < n && (CJK_TERMINATORS.includes(text[j]) || CLOSERS.includes(text[j]))) j++;
      let k = j;
      while (k < n && isSpace(text[k])) k++;
      push(j, k);
      i = k;
      continue;
    }
    if (TERMINATORS.includes(ch)) {
      let j = i + 1;
      while (j < n && (TERMINATORS.includes(text[j]) || CLOSERS.includes(text[j]))) j++;
      if (j < n && isSpace(text[j])) {
        let k = j;
        while (k < n && isSpace(text[k])) k++;
        const next = text[k];
        // A lowercase continuation or an abbreviation means the sentence goes on.
        const continues = next !== undefined && /\p{Ll}/u.test(next);
        if (!continues && !(ch === "." && j === i + 1 && isAbbreviation(text, i))) {
          push(j, k);
          i = k;
          continue;
        }
      }
      i = j;
      continue;
    }
    i++;
  }
  if (start < n) push(n, n);
  return out;
}

/** Whitespace-separated words; never splits inside a word. */
export function splitWords(text: string): Segment[] {
  const out: Segment[] = [];
  const re = /(\s*)(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) out.push({ text: m[2], sep: out.length === 0 ? "" : sepOf(m[1]) });
  return out;
}
