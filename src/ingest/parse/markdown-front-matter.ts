// YAML front matter ("---" ... "---" at the very top). CommonMark has no front matter, so it is
// cut off before parsing; otherwise its closing "---" would turn the last key into a heading.
// Only `title:` is read: it is the one key the document needs, and a line match never fails on
// the YAML mistakes hand-written front matter often has.

// A "---" further down than this is a thematic break, not the end of front matter.
const MAX_FRONT_MATTER_LINES = 200;

export interface FrontMatter {
  /** the document after the front matter (all of it when there is none) */
  body: string;
  title?: string;
}

export function splitFrontMatter(text: string): FrontMatter {
  const lines = text.split("\n");
  if (lines[0]?.trim() !== "---") return { body: text };
  const end = lines.findIndex((l, i) => i > 0 && i < MAX_FRONT_MATTER_LINES && (l.trim() === "---" || l.trim() === "..."));
  if (end <= 0) return { body: text };
  let title: string | undefined;
  for (const line of lines.slice(1, end)) {
    const m = /^title:\s*(.+)$/i.exec(line.trim());
    if (m) title = m[1].trim().replace(/^(["'])(.*)\1$/, "$2").trim() || undefined;
  }
  return { body: lines.slice(end + 1).join("\n"), title };
}
