// reStructuredText and AsciiDoc read as Markdown for their headings: the sections become Markdown
// headings so chunks follow them and carry them in their heading path; everything else stays the
// text it was (the Markdown parser reads it as paragraphs, lists and code).

/** Characters RST allows for section adornment. */
const ADORNMENT = /^([=\-`:'"~^_*+#<>.])\1{2,}\s*$/;

/**
 * RST sections: a title with an underline (and optionally an overline) of one punctuation
 * character at least as long as the title. Levels follow the order in which the styles first
 * appear, as RST itself decides them.
 */
export function rstToMarkdown(text: string): string {
  const lines = text.split(/\r?\n/);
  const styles: string[] = [];
  const out: string[] = [];
  const levelOf = (style: string) => {
    if (!styles.includes(style)) styles.push(style);
    return Math.min(styles.indexOf(style) + 1, 6);
  };
  for (let i = 0; i < lines.length; i++) {
    const title = lines[i].trim();
    const under = lines[i + 1]?.match(ADORNMENT);
    const over = lines[i - 1]?.match(ADORNMENT);
    if (title && !ADORNMENT.test(lines[i]) && under && lines[i + 1].trim().length >= title.length) {
      const overlined = !!over && over[1] === under[1] && out.length > 0 && out[out.length - 1] === lines[i - 1];
      if (overlined) out.pop();
      out.push(`${"#".repeat(levelOf(`${under[1]}${overlined ? "o" : ""}`))} ${title}`);
      i++; // the underline
      continue;
    }
    out.push(lines[i]);
  }
  return out.join("\n");
}

/** AsciiDoc sections: "= Title", "== Section" ... become "# Title", "## Section" outside listing blocks. */
export function asciidocToMarkdown(text: string): string {
  let inBlock = false;
  return text
    .split(/\r?\n/)
    .map((line) => {
      if (/^(-{4,}|\.{4,}|\+{4,})\s*$/.test(line)) inBlock = !inBlock;
      const m = inBlock ? null : /^(={1,6})\s+(\S.*)$/.exec(line);
      return m ? `${"#".repeat(m[1].length)} ${m[2].trim()}` : line;
    })
    .join("\n");
}
