import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { isZip, readZipEntry, scanLocalEntryNames, zipEntryNames } from "../../src/ingest/zip.js";

const archive = zipSync({
  "[Content_Types].xml": strToU8("<Types/>"),
  "word/document.xml": [strToU8("<w:document>" + "text ".repeat(2000) + "</w:document>"), { level: 9 }],
  "docProps/core.xml": [strToU8("<dc:title>Quarterly report</dc:title>"), { level: 0 }],
});

describe("zip reading", () => {
  it("lists the central directory and reads stored and deflated entries", () => {
    expect(isZip(archive)).toBe(true);
    expect(zipEntryNames(archive)).toEqual(["[Content_Types].xml", "word/document.xml", "docProps/core.xml"]);
    expect(readZipEntry(archive, "docProps/core.xml")?.toString("utf8")).toBe("<dc:title>Quarterly report</dc:title>");
    expect(readZipEntry(archive, "word/document.xml")?.toString("utf8")).toHaveLength(12 + 10_000 + 13);
    expect(readZipEntry(archive, "missing.xml")).toBeNull();
  });

  it("refuses an entry larger than the cap instead of inflating it", () => {
    expect(readZipEntry(archive, "word/document.xml", 1000)).toBeNull();
  });

  it("gives null for a truncated archive, whose names the local headers still show", () => {
    const truncated = archive.subarray(0, archive.length - 40);
    expect(zipEntryNames(truncated)).toBeNull();
    expect(readZipEntry(truncated, "docProps/core.xml")).toBeNull();
    expect(scanLocalEntryNames(truncated)).toEqual(["[Content_Types].xml", "word/document.xml", "docProps/core.xml"]);
    expect(zipEntryNames(Buffer.from("PK\x03\x04 not really a zip"))).toBeNull();
  });
});
