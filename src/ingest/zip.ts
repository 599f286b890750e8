// Just enough ZIP reading to tell OOXML containers apart (a .docx must hold word/document.xml)
// and to read small metadata parts such as docProps/core.xml, without another dependency.
import { inflateRawSync } from "node:zlib";

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function findEocd(buf: Buffer): number {
  // The comment after the EOCD record is at most 65535 bytes, so it starts within that reach of the end.
  const stop = Math.max(0, buf.length - 22 - 0xffff);
  for (let i = buf.length - 22; i >= stop; i--) {
    if (buf.readUInt32LE(i) === EOCD_SIG) return i;
  }
  return -1;
}

/** Entries from the central directory, or null when the archive is truncated or corrupt. */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] | null {
  const buf = asBuffer(bytes);
  if (buf.length < 22) return null;
  const eocd = findEocd(buf);
  if (eocd < 0) return null;
  let count = buf.readUInt16LE(eocd + 10);
  let cdOffset = buf.readUInt32LE(eocd + 16);
  if (cdOffset === 0xffffffff || count === 0xffff) {
    const locator = eocd - 20;
    if (locator < 0 || buf.readUInt32LE(locator) !== ZIP64_LOCATOR_SIG) return null;
    const rec = Number(buf.readBigUInt64LE(locator + 8));
    if (rec + 56 > buf.length || buf.readUInt32LE(rec) !== ZIP64_EOCD_SIG) return null;
    count = Number(buf.readBigUInt64LE(rec + 32));
    cdOffset = Number(buf.readBigUInt64LE(rec + 48));
  }
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL_SIG) return null;
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    if (p + 46 + nameLen > buf.length) return null;
    entries.push({
      name: buf.toString("utf8", p + 46, p + 46 + nameLen),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      localHeaderOffset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Names found in local file headers; works on truncated archives where the directory is gone. */
export function scanLocalEntryNames(bytes: Uint8Array, limit = 200): string[] {
  const buf = asBuffer(bytes);
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

/** One entry's bytes (stored or deflated), capped at maxBytes so a zip bomb cannot blow up memory. */
export function readZipEntry(bytes: Uint8Array, name: string, maxBytes = 1 << 20): Buffer | null {
  const buf = asBuffer(bytes);
  const entry = listZipEntries(buf)?.find((e) => e.name === name);
  if (!entry) return null;
  const at = entry.localHeaderOffset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL_SIG) return null;
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const end = start + entry.compressedSize;
  if (end > buf.length) return null;
  const data = buf.subarray(start, end);
  try {
    if (entry.method === 0) return data.length <= maxBytes ? Buffer.from(data) : null;
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
  return null;
}
