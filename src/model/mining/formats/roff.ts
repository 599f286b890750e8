// Manual pages (man(7) and mdoc(7) roff) -> sections. Not a typesetter: macros that start a
// section or paragraph are read, font and spacing escapes are dropped, the rest is text. A page's
// NAME line ("ls - list directory contents") is the best question it answers: it asks for the
// DESCRIPTION. Standard headings (OPTIONS, SEE ALSO, ...) ask for nothing on their own.
import { makePair, type MinedDocument, type Pair, type Section } from "../sections.js";

const ESCAPES: [RegExp, string][] = [
  [/\\f(\[[^\]]*\]|\(..|.)/g, ""], // fonts
  [/\\s[+-]?\d+/g, ""], // sizes
  [/\\\*(\[[^\]]*\]|\(..|.)/g, ""], // strings
  [/\\\((em|en)/g, " - "],
  [/\\\((aq|cq|oq)/g, "'"],
  [/\\\((dq|lq|rq)/g, '"'],
  [/\\\(bu/g, "*"],
  [/\\\(..|\\\[[^\]]*\]/g, ""], // other special characters
  [/\\-/g, "-"],
  [/\\e/g, "\\"],
  [/\\[&,/|^0 ~:%c]/g, ""],
  [/\\"/g, ""],
];

export function roffText(s: string): string {
  let t = s;
  for (const [re, to] of ESCAPES) t = t.replace(re, to);
  return t;
}

/** A macro's arguments as text ("quoted args" kept together, quotes removed). */
function macroArgs(rest: string): string {
  return roffText(rest.replace(/"([^"]*)"/g, "$1")).trim();
}

const HEADING_MACROS = new Set(["SH", "Sh", "SS", "Ss"]);
const BREAK_MACROS = new Set(["PP", "LP", "P", "Pp", "IP", "TP", "br", "sp", "RS", "RE", "Bl", "El", "It", "HP", "TQ", "nf", "fi", "Bd", "Ed"]);
const INLINE_MACROS = new Set(["B", "I", "BR", "RB", "IR", "RI", "BI", "IB", "SM", "SB", "Nm", "Ar", "Fl", "Cm", "Em", "Sy", "Va", "Fn", "Xr", "Pa", "Dv", "Ev", "Li", "Ql", "Dq", "Sq", "Nd"]);

export function roffSections(source: string): MinedDocument {
  const sections: Section[] = [];
  let heading: string[] = [];
  let text = "";
  let title = "";
  const flush = () => {
    if (text.trim()) sections.push({ headings: heading, text });
    text = "";
  };
  for (const line of source.split("\n")) {
    const m = /^[.'][ \t]*([A-Za-z]{1,3})\b[ \t]*(.*)$/.exec(line);
    if (!m) {
      if (!/^[.']\s*\\"/.test(line)) text += `${roffText(line)}\n`;
      continue;
    }
    const [, macro, rest] = m as unknown as [string, string, string];
    if (macro === "TH" || macro === "Dt") title = macroArgs(rest).split(/\s+/)[0]!.toLowerCase();
    else if (HEADING_MACROS.has(macro)) {
      flush();
      const h = macroArgs(rest);
      heading = macro === "SS" || macro === "Ss" ? [heading[0] ?? "", h] : [h];
    } else if (BREAK_MACROS.has(macro)) text += `\n${macro === "IP" || macro === "It" ? macroArgs(rest) + " " : ""}`;
    else if (INLINE_MACROS.has(macro)) text += `${macro === "Nd" ? "- " : ""}${macroArgs(rest)} `;
  }
  flush();
  return { title, sections };
}

const STANDARD = new Set(
  "NAME SYNOPSIS DESCRIPTION OPTIONS EXIT STATUS RETURN VALUE ERRORS ENVIRONMENT FILES VERSIONS CONFORMING TO STANDARDS NOTES BUGS EXAMPLE EXAMPLES AUTHOR AUTHORS REPORTING BUGS COPYRIGHT SEE ALSO HISTORY ATTRIBUTES LICENSE AVAILABILITY"
    .split(" ")
    .concat(["EXIT STATUS", "RETURN VALUE", "CONFORMING TO", "REPORTING BUGS", "SEE ALSO", "COPYRIGHT AND LICENSE"]),
);

export function manPairs(doc: MinedDocument): Pair[] {
  const out: Pair[] = [];
  const name = doc.sections.find((s) => s.headings[0]?.toUpperCase() === "NAME")?.text.replace(/\s+/g, " ").trim() ?? "";
  const dash = name.search(/\s[-\u2014]\s/);
  const summary = dash > 0 ? name.slice(dash + 3).trim() : "";
  const command = dash > 0 ? name.slice(0, dash).trim() : doc.title;
  const description = doc.sections.find((s) => s.headings[0]?.toUpperCase() === "DESCRIPTION");
  const push = (p: Pair | null) => p && out.push(p);
  if (description && summary) {
    push(makePair("summary", summary, [command], description.text));
    push(makePair("heading", command, [], `${summary}\n${description.text}`));
  }
  for (const s of doc.sections) {
    const own = s.headings.at(-1) ?? "";
    if (!own || STANDARD.has(own.toUpperCase())) continue;
    const heading = own === own.toUpperCase() ? own.toLowerCase() : own;
    push(makePair("heading", heading, [command, ...s.headings.slice(0, -1).filter((h) => !STANDARD.has(h.toUpperCase()))], s.text));
  }
  return out;
}
