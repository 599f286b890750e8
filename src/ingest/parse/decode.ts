// Text formats are accepted only as UTF-8: guessing legacy code pages silently garbles text,
// and a clear "save it as UTF-8" is something a user can act on.

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The text of a UTF-8 file (BOM dropped), or null when the bytes are not UTF-8 text. */
export function decodeUtf8Text(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return fatalDecoder.decode(bytes);
  } catch {
    return null;
  }
}

// C0/C1 controls other than tab, newline, carriage return and form feed: a few are tolerated
// (stray ESC in logs), many mean the "text" is really binary.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0001-\u0008\u000B\u000E-\u001F\u007F-\u009F]/g;

export function controlCharRatio(text: string, sample = 64 * 1024): number {
  const head = text.length > sample ? text.slice(0, sample) : text;
  if (head.length === 0) return 0;
  const matches = head.match(CONTROL);
  return (matches?.length ?? 0) / head.length;
}

/** Normalises what every text-based parser receives: NFC, \n line ends, no stray controls. */
export function normalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(CONTROL, "")
    .replace(/\f/g, "\n")
    .normalize("NFC");
}
