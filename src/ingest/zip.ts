// ZIP reading for OOXML containers (a .docx must hold word/document.xml) and their small metadata
// parts such as docProps/core.xml. fflate reads the central directory (ZIP64 included); the one
// thing kept here is a scan of local headers, for truncated archives whose directory is gone.
import { unzipSync } from "fflate";

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/** Entry names from the central directory, or null when the archive is truncated or corrupt. */
export function zipEntryNames(bytes: Uint8Array): string[] | null {
  const names: string[] = [];
  try {
    unzipSync(bytes, {
      filter: (f) => {
        names.push(f.name);
        return false; // list only: nothing is inflated
      },
    });
  } catch {
    return null;
  }
  return names;
}

/** Names found in local file headers; works on truncated archives where the directory is gone. */
export function scanLocalEntryNames(bytes: Uint8Array, limit = 200): string[] {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sig = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
  const names: string[] = [];
  let at = buf.indexOf(sig, 0);
  while (at >= 0 && at + 30 <= buf.length && names.length < limit) {
    const nameLen = buf.readUInt16LE(at + 26);
    if (nameLen > 0 && at + 30 + nameLen <= buf.length) names.push(buf.toString("utf8", at + 30, at + 30 + nameLen));
    at = buf.indexOf(sig, at + 4);
  }
  return names;
}

/**
 * One entry's bytes, or null when it is absent, unreadable or declares more than maxBytes. fflate
 * inflates into a buffer of the declared size, so an entry that lies about its size (a zip bomb)
 * cannot grow memory past maxBytes either.
 */
export function readZipEntry(bytes: Uint8Array, name: string, maxBytes = 1 << 20): Buffer | null {
  try {
    const files = unzipSync(bytes, { filter: (f) => f.name === name && f.originalSize <= maxBytes });
    const data = files[name];
    return data ? Buffer.from(data.buffer, data.byteOffset, data.byteLength) : null;
  } catch {
    return null;
  }
}
