// Perl's POD -> sections: =headN start sections, =item gives definitions, verbatim (indented)
// paragraphs are code and left out, formatting codes (B<>, C<>, L<text|link>, E<gt>) become text.
// perlfaq's "=head2 How do I ...?" headings are real questions with their answers.
import { cleanText, type Definition, type MinedDocument, type Section } from "../sections.js";

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", verbar: "|", sol: "/", quot: '"', amp: "&" };

export function podText(s: string): string {
  let t = s;
  for (let i = 0; i < 4 && /[A-Z]<+/.test(t); i++) {
    t = t
      .replace(/E<([a-z]+|\d+)>/g, (_, e: string) => ENTITIES[e] ?? (/^\d+$/.test(e) ? String.fromCharCode(Number(e)) : ""))
      .replace(/L<([^<>|]*)\|[^<>]*>/g, "$1")
      .replace(/[A-Z]<< (.*?) >>/g, "$1")
      .replace(/[XZ]<[^<>]*>/g, "")
      .replace(/[A-Z]<([^<>]*)>/g, "$1");
  }
  return t;
}

export function podSections(source: string, title: string): MinedDocument {
  const sections: Section[] = [];
  const definitions: Definition[] = [];
  let headings: string[] = [];
  let text = "";
  let item: string | null = null;
  let itemText = "";
  const endItem = () => {
    if (item && itemText.trim()) definitions.push({ term: item, text: itemText, headings });
    item = null;
    itemText = "";
  };
  for (const para of source.split(/\n\s*\n/)) {
    const cmd = /^=(\w+)\s*([\s\S]*)$/.exec(para);
    if (cmd) {
      const [, name, rest] = cmd as unknown as [string, string, string];
      const h = /^head(\d)$/.exec(name);
      if (h) {
        endItem();
        if (text.trim()) sections.push({ headings, text });
        text = "";
        headings = [...headings.slice(0, Number(h[1]) - 1), cleanText(podText(rest)).replace(/\n/g, " ")];
      } else if (name === "item") {
        endItem();
        item = cleanText(podText(rest)).replace(/^[*\d.]+\s*/, "") || null;
      } else if (name === "back") endItem();
      continue;
    }
    if (/^[ \t]/.test(para)) continue; // verbatim: code
    const t = `${podText(para)}\n\n`;
    text += t;
    if (item) itemText += t;
  }
  endItem();
  if (text.trim()) sections.push({ headings, text });
  return { title, sections, definitions };
}
