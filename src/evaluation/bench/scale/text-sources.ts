// The real text the scale corpus is made of, read from wherever Debian put it on this machine:
// package descriptions (dpkg's status file and, when apt has package lists, `apt-cache
// dumpavail`), man pages (/usr/share/man, gzipped roff) and the documentation packages install
// (/usr/share/doc: changelogs, READMEs, copyright files, HTML and Markdown). Paths are options so
// tests can point them at fixture directories.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { execFileSync } from "node:child_process";
import { roffToText } from "./roff.js";

export type Origin = "package" | "man" | "doc";

export interface SourceText {
  origin: Origin;
  /** where it came from (package name or file path): the document's `source` */
  source: string;
  title: string;
  text: string;
}

export interface TextRoots {
  /** dpkg status file (installed packages), null to skip */
  dpkgStatus: string | null;
  /** also read `apt-cache dumpavail` (every package apt knows of) */
  aptDumpavail: boolean;
  manDir: string | null;
  docDir: string | null;
}

export const DEBIAN_ROOTS: TextRoots = { dpkgStatus: "/var/lib/dpkg/status", aptDumpavail: true, manDir: "/usr/share/man", docDir: "/usr/share/doc" };

/** Package stanzas (deb822) to one text per package: "name: synopsis" and the long description. */
export function parsePackageStanzas(text: string, seen: Set<string>): SourceText[] {
  const out: SourceText[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const name = /^Package:\s*(\S+)/m.exec(stanza)?.[1];
    const desc = /^Description(?:-en)?:\s*(.*)((?:\n[ \t].*)*)/m.exec(stanza);
    if (!name || !desc || seen.has(name)) continue;
    seen.add(name);
    const body = desc[2]
      .split("\n")
      .map((l) => l.trim())
      .map((l) => (l === "." ? "" : l))
      .join("\n")
      .trim();
    out.push({ origin: "package", source: `package:${name}`, title: `${name}: ${desc[1].trim()}`, text: body || desc[1].trim() });
  }
  return out;
}

function packageTexts(roots: TextRoots): SourceText[] {
  const seen = new Set<string>();
  const out: SourceText[] = [];
  if (roots.dpkgStatus && fs.existsSync(roots.dpkgStatus)) out.push(...parsePackageStanzas(fs.readFileSync(roots.dpkgStatus, "utf8"), seen));
  if (roots.aptDumpavail) {
    try {
      const dump = execFileSync("apt-cache", ["dumpavail"], { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
      out.push(...parsePackageStanzas(dump, seen));
    } catch {
      // no apt or no package lists: the installed packages are all there is
    }
  }
  return out;
}

/** every regular file under dir, sorted so the corpus is the same on every run */
export function walkFiles(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else if (e.isFile()) out.push(p);
    }
  };
  visit(dir);
  return out;
}

/** file contents as text (gunzipped), or null for binary or unreadable files */
export function readTextFile(file: string): string | null {
  try {
    let buf = fs.readFileSync(file);
    if (file.endsWith(".gz")) buf = zlib.gunzipSync(buf);
    if (buf.subarray(0, 8192).includes(0)) return null;
    return buf.toString("utf8");
  } catch {
    return null;
  }
}

function manTexts(dir: string): SourceText[] {
  const out: SourceText[] = [];
  for (const file of walkFiles(dir)) {
    const raw = readTextFile(file);
    if (!raw || /^\.so\s/m.test(raw.slice(0, 200))) continue; // .so pages only point at another page
    const { title, text } = roffToText(raw);
    const name = path.basename(file).replace(/\.gz$/, "");
    if (text.length > 40) out.push({ origin: "man", source: file, title: title ? `${title} (${name})` : name, text });
  }
  return out;
}

const BINARY_EXT = /\.(png|gif|jpe?g|svg|ico|pdf|woff2?|ttf|otf|eot|zip|bz2|xz|zst|jar|so|a|o|pyc|mo|bin|db)$/i;

/** HTML to text: tags and scripts go, block elements become paragraph breaks */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<\/?(p|div|h[1-6]|li|tr|pre|br|section|article|table|dd|dt)\b[^>]*>/gi, "\n\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/[ \t]+/g, " ")
    .replace(/\n[ \t]+/g, "\n")
    .replace(/\n{3,}/g, "\n\n");
}

function docTexts(dir: string): SourceText[] {
  const out: SourceText[] = [];
  for (const file of walkFiles(dir)) {
    if (BINARY_EXT.test(file.replace(/\.gz$/, ""))) continue;
    const raw = readTextFile(file);
    if (!raw) continue;
    const text = /\.html?(\.gz)?$/i.test(file) ? htmlToText(raw) : raw;
    const rel = path.relative(dir, file);
    if (text.trim().length > 40) out.push({ origin: "doc", source: file, title: rel.replace(/\.gz$/, ""), text });
  }
  return out;
}

/** Everything readable, in a fixed order: packages, man pages, documentation. */
export function readSourceTexts(roots: TextRoots): SourceText[] {
  const out = packageTexts(roots);
  if (roots.manDir) out.push(...manTexts(roots.manDir));
  if (roots.docDir) out.push(...docTexts(roots.docDir));
  return out;
}
