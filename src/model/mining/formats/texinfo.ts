// GNU Info files -> sections: nodes are separated by ^_ lines; a heading is a line underlined with
// *, =, - or . of the same length; menus and indented examples are left out. The document title
// is the manual's name (grep.info -> grep).
import type { MinedDocument, Section } from "../sections.js";

const UNDERLINE = /^[*=\-.]{3,}$/;

function nodeSections(node: string, title: string): Section[] {
  const lines = node.split("\n").slice(1); // "File: x.info,  Node: ..." line
  const out: Section[] = [];
  let headings: string[] = [];
  let text = "";
  let inMenu = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1] ?? "";
    if (line.trim() && UNDERLINE.test(next.trim()) && Math.abs(next.trim().length - line.trim().length) <= 2) {
      if (text.trim()) out.push({ headings, text });
      text = "";
      const h = line.trim().replace(/^(\d+|[A-Z])(\.\d+)*\s+/, "");
      headings = next.trim()[0] === "*" || next.trim()[0] === "=" ? [h] : [headings[0] ?? title, h];
      i++;
      continue;
    }
    if (line.startsWith("* Menu:")) inMenu = true;
    else if (inMenu && line.trim() === "") inMenu = lines[i + 1]?.startsWith("* ") ?? false;
    if (inMenu || /^ {5,}/.test(line)) continue; // menus, examples
    text += `${line}\n`;
  }
  if (text.trim()) out.push({ headings, text });
  return out;
}

export function infoSections(source: string, title: string): MinedDocument {
  const sections: Section[] = [];
  for (const node of source.split("\x1f\n").slice(1)) {
    if (!node.startsWith("File:")) continue; // tag tables, indirect tables
    sections.push(...nodeSections(node, title));
  }
  return { title, sections };
}
