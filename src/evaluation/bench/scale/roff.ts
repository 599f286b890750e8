// Man pages (roff, man and mdoc macros) to plain text, without calling man(1): the bench needs
// words and paragraphs, not layout. Macro lines keep their arguments (.B name -> name), requests
// that only set layout are dropped, escapes are removed or mapped to their character.

const DROP = new Set([
  "ad", "bp", "ce", "de", "ds", "ec", "el", "eo", "fi", "ft", "hy", "ie", "if", "ig", "in", "ll", "ne", "nf", "nh", "nr",
  "ps", "rm", "rn", "so", "ta", "ti", "tr", "vs", "na", "mk", "rt", "cc", "cs", "ss", "pc", "lf", "hw", "TS", "TE", "UC",
  "DT", "PD", "RS", "RE", "EX", "EE", "ME", "UE", "Dd", "Os", "Bl", "El", "Bd", "Ed", "Ek", "Bk", "TH",
]);
const BREAK = new Set(["PP", "LP", "P", "sp", "br", "TP", "IP", "HP", "SH", "SS", "Sh", "Ss", "Pp", "It"]);
const CHARS: Record<string, string> = { em: "—", en: "–", bu: "•", aq: "'", dq: '"', lq: "“", rq: "”", oq: "‘", cq: "’", hy: "-", mi: "-", co: "©", rg: "®", tm: "™" };

/** inline escapes: fonts, sizes, special characters, zero-width marks */
export function stripEscapes(s: string): string {
  return s
    .replace(/\\f(\[[^\]]*\]|\(..|.)/g, "")
    .replace(/\\s[+-]?\d+/g, "")
    .replace(/\\\((..)/g, (_, c: string) => CHARS[c] ?? "")
    .replace(/\\\[([^\]]*)\]/g, (_, c: string) => CHARS[c] ?? "")
    .replace(/\\\*(\[[^\]]*\]|\(..|.)/g, "")
    .replace(/\\[nk](\[[^\]]*\]|\(..|.)/g, "")
    .replace(/\\[-]/g, "-")
    .replace(/\\e/g, "\\")
    .replace(/\\[ ~0]/g, " ")
    .replace(/\\[&|^%:,/cdu)]/g, "")
    .replace(/\\"/g, "");
}

/** .BR, .IR ...: arguments in alternating fonts, printed without spaces between them */
const ALTERNATING = new Set(["BR", "RB", "BI", "IB", "IR", "RI"]);

function macroArgs(rest: string, joiner = " "): string {
  // quoted arguments keep their spaces; the quotes go
  const args = rest.match(/"[^"]*"|\S+/g) ?? [];
  return args
    .map((a) => a.replace(/^"|"$/g, ""))
    .join(joiner)
    .trim();
}

/** The man page's title (from .TH or .Dt) and its text, paragraphs separated by blank lines. */
export function roffToText(src: string): { title: string | null; text: string } {
  const out: string[] = [];
  let title: string | null = null;
  let skipping: string | null = null; // inside .de/.ig until its terminator
  for (const raw of src.split("\n")) {
    if (skipping) {
      if (raw.startsWith(skipping)) skipping = null;
      continue;
    }
    if (raw.startsWith(".\\\"") || raw.startsWith("'\\\"") || raw.startsWith("\\\"")) continue;
    const m = /^[.'][ \t]*([A-Za-z]{1,3})\b[ \t]*(.*)$/.exec(raw);
    if (!m) {
      if (/^[.']/.test(raw)) continue; // unknown request like .\} or ..
      out.push(stripEscapes(raw));
      continue;
    }
    const [, name, rest] = m;
    if (name === "de" || name === "ig") {
      skipping = "..";
      continue;
    }
    if ((name === "TH" || name === "Dt") && !title) title = macroArgs(stripEscapes(rest)).split(/\s+/)[0] ?? null;
    if (BREAK.has(name)) out.push("");
    if (DROP.has(name) || name === "Dt") continue;
    const args = macroArgs(stripEscapes(rest), ALTERNATING.has(name) ? "" : " ");
    if (args) out.push(args);
    if (name === "SH" || name === "SS" || name === "Sh" || name === "Ss") out.push("");
  }
  const text = out
    .join("\n")
    .replace(/[ \t]+/g, " ")
    .replace(/\n[ \t]+/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title, text };
}
