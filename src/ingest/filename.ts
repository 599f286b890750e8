// Upload file names are user input: they end up on disk, in logs, in the console and in
// Content-Disposition headers, so they are reduced to one safe, readable path segment.

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
const MAX_NAME_CHARS = 180;
const MAX_EXT_CHARS = 16;

/**
 * A file name safe to store and show: no directories, no control or bidi-override characters
 * (which can disguise "txt.exe" as "exe.txt"), NFC, at most 180 characters with the extension
 * kept, never empty.
 */
export function safeFileName(name: string): string {
  let base = (name.split(/[\\/]/).pop() ?? "").normalize("NFC");
  base = base
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, "")
    .replace(/[<>:"|?*]/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.\s]+/, "")
    .replace(/[.\s]+$/, "");
  if (WINDOWS_RESERVED.test(base)) base = `_${base}`;
  const chars = Array.from(base);
  if (chars.length > MAX_NAME_CHARS) {
    const dot = base.lastIndexOf(".");
    const ext = dot > 0 ? Array.from(base.slice(dot)) : [];
    const keepExt = ext.length > 1 && ext.length <= MAX_EXT_CHARS ? ext : [];
    base = chars.slice(0, MAX_NAME_CHARS - keepExt.length).join("").trimEnd() + keepExt.join("");
  }
  return base.length > 0 ? base : "file";
}

/** Lower-case extension with the dot ("" when there is none); a leading dot is not an extension. */
export function fileExtension(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}
