// Inline Markdown -> plain text. Search and embeddings want the words, not URLs or emphasis
// markers; block structure (lists, tables, code) is kept by the block parser instead.

const HTML_TAGS =
  "a|abbr|b|big|br|center|cite|code|del|details|div|em|font|hr|i|img|ins|kbd|mark|p|picture|q|s|samp|small|source|span|strike|strong|sub|summary|sup|u|var|video";
const TAG_RE = new RegExp(`</?(?:${HTML_TAGS})(?:\\s[^<>]*)?/?>`, "gi");

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  copy: "©",
  reg: "®",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ent: string) => {
    if (ent[0] === "#") {
      const code = ent[1] === "x" || ent[1] === "X" ? parseInt(ent.slice(2), 16) : parseInt(ent.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ent.toLowerCase()] ?? whole;
  });
}

/** Plain text of one line (or a few lines) of inline Markdown. */
export function stripInline(text: string): string {
  let out = text;
  if (out.includes("<")) {
    out = out.replace(/<br\s*\/?>/gi, " ").replace(/<(https?:\/\/[^>\s]+)>/g, "$1").replace(TAG_RE, "");
  }
  if (out.includes("](") || out.includes("][")) {
    out = out
      .replace(/!\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, "$1")
      .replace(/(?<!\\)\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, "$1")
      .replace(/(?<!\\)\[([^\]]+)\]\[[^\]]*\]/g, "$1");
  }
  if (/[*_~`]/.test(out)) {
    out = out
      .replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, "$2")
      .replace(/~~(?=\S)([^\n]*?\S)~~/g, "$1")
      .replace(/(^|[^\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])/g, "$1$2")
      .replace(/(^|[^\w\\])_(?=[^\s_])([^_\n]*?[^\s_\\])_(?!\w)/g, "$1$2")
      .replace(/(`+)([^`\n]+?)\1/g, "$2");
  }
  if (out.includes("\\")) out = out.replace(/\\([\\`*_{}[\]()#+\-.!|<>~=])/g, "$1");
  if (out.includes("&")) out = decodeEntities(out);
  return out;
}
