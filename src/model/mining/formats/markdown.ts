// Markdown (npm packages' READMEs) -> sections: ATX and setext headings start sections; fenced
// and indented code, images, badges, tables of contents and HTML tags are left out; links keep
// their text.
import type { MinedDocument, Section } from "../sections.js";

export function markdownInline(s: string): string {
  return s
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "") // images, badges
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/[*_]{1,3}([^*_\n]+)[*_]{1,3}/g, "$1")
    .replace(/`([^`\n]*)`/g, "$1");
}

export function markdownSections(source: string, fallbackTitle: string): MinedDocument {
  const sections: Section[] = [];
  let headings: string[] = [];
  let text = "";
  let fence: string | null = null;
  let title = "";
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const heading = (level: number, raw: string) => {
    if (text.trim()) sections.push({ headings, text });
    text = "";
    const h = markdownInline(raw).replace(/#+\s*$/, "").trim();
    if (level === 1 && !title) title = h;
    headings = [...headings.slice(0, level - 1), h];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^\s*(```|~~~)/.exec(line);
    if (f) {
      fence = fence === null ? f[1]! : fence === f[1] ? null : fence;
      continue;
    }
    if (fence !== null || /^( {4}|\t)/.test(line) || /^\s*\|/.test(line)) continue;
    const atx = /^(#{1,6})\s+(.*)$/.exec(line);
    if (atx) heading(atx[1]!.length, atx[2]!);
    else if (/^(=+|-+)\s*$/.test(lines[i + 1] ?? "") && line.trim() && !/^\s*[-*]/.test(line)) {
      heading((lines[i + 1] ?? "").trim().startsWith("=") ? 1 : 2, line);
      i++;
    } else text += `${markdownInline(line)}\n`;
  }
  if (text.trim()) sections.push({ headings, text });
  return { title: title || fallbackTitle, sections };
}
