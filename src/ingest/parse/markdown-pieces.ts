// micromark's cost grows faster than the length of the document (a 2 MB file with a small list
// in every section took minutes where 400 KB took seconds), so long documents are parsed in
// pieces cut before top-level headings. The cut changes nothing CommonMark would see: a heading
// at column 0 after a blank line closes every open block, except a fenced code block or a raw
// HTML block (script, pre, style, textarea, comment, ...), which are tracked line by line. Link
// reference and footnote definitions are document-wide, so a document with any is not cut.

/** Pieces are cut only once they have at least this many characters: short documents stay whole. */
const PIECE_CHARS = 16 * 1024;
const DEFINITION = /^ {0,3}\[[^\]]+\]:/m;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
// Raw HTML blocks that may hold blank lines, with the marker that ends each (CommonMark 4.6, 1-5).
const RAW_HTML: Array<[RegExp, RegExp]> = [
  [/^ {0,3}<(script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
];

/** The document cut into pieces that parse to the same blocks, one after the other, as the whole. */
export function markdownPieces(body: string): string[] {
  if (body.length < 2 * PIECE_CHARS || DEFINITION.test(body)) return [body];
  const lines = body.split("\n");
  const pieces: string[] = [];
  let start = 0;
  let chars = 0;
  const open = blockTracker();
  for (let i = 0; i < lines.length; i++) {
    const cut = chars >= PIECE_CHARS && i > start && !open.inside() && lines[i - 1].trim() === "" && ATX_HEADING.test(lines[i]);
    if (cut) {
      pieces.push(lines.slice(start, i).join("\n"));
      start = i;
      chars = 0;
    }
    open.read(lines[i]);
    chars += lines[i].length + 1;
  }
  pieces.push(lines.slice(start).join("\n"));
  return pieces;
}

/** Whether the lines read so far leave a fenced code block or a raw HTML block open. */
function blockTracker(): { read(line: string): void; inside(): boolean } {
  let fence: string | undefined;
  let htmlEnd: RegExp | undefined;
  return {
    inside: () => fence !== undefined || htmlEnd !== undefined,
    read(line) {
      if (fence !== undefined) {
        if (isClosingFence(line, fence)) fence = undefined;
      } else if (htmlEnd !== undefined) {
        if (htmlEnd.test(line)) htmlEnd = undefined;
      } else {
        fence = FENCE_OPEN.exec(line)?.[1];
        if (fence === undefined) htmlEnd = rawHtmlEnd(line);
      }
    },
  };
}

function isClosingFence(line: string, fence: string): boolean {
  const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length;
}

/** The end marker of a raw HTML block starting on this line, unless it also ends on it. */
function rawHtmlEnd(line: string): RegExp | undefined {
  for (const [startRe, endRe] of RAW_HTML) {
    const m = startRe.exec(line);
    if (m) return endRe.test(line.slice(m[0].length)) ? undefined : endRe;
  }
  return undefined;
}
