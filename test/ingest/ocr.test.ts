// Scanned PDFs: a page that is one image (with at most a scanner's header as real text) is read
// with OCR (pdftoppm + Tesseract) when they are installed, and fails with a reason saying so when
// they are not — never `indexed` with nothing but the header.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterEach, describe, expect, it } from "vitest";
import { makePdf } from "./fixtures.js";
import { parseDocument } from "../../src/ingest/parse/index.js";
import { ocrAvailable } from "../../src/ingest/parse/ocr.js";

/** A "scan": a text page rendered to a grey PNG by pdftoppm, placed as the only content of a new
 * PDF page, plus a printer's header in real text. */
async function makeScannedPdf(paragraphs: string[]): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-scan-"));
  try {
    fs.writeFileSync(path.join(dir, "text.pdf"), await makePdf([{ heading: "Maintenance Handbook", paragraphs }]));
    execFileSync("pdftoppm", ["-r", "150", "-gray", "-png", "-singlefile", path.join(dir, "text.pdf"), path.join(dir, "page")]);
    const pdf = await PDFDocument.create();
    const png = await pdf.embedPng(fs.readFileSync(path.join(dir, "page.png")));
    const page = pdf.addPage([595, 842]);
    page.drawImage(png, { x: 0, y: 0, width: 595, height: 842 });
    page.drawText("Scanned by ACME MFP 4000", { x: 20, y: 830, size: 6, font: await pdf.embedFont(StandardFonts.Helvetica) });
    return Buffer.from(await pdf.save());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const TEXT = [
  "Replace the gearbox lubricant every six months and check the turbine blades for cracks.",
  "The emergency brake must be tested before every inspection climb.",
];

afterEach(() => {
  delete process.env.QUARRY_DISABLE_OCR;
});

describe.skipIf(!ocrAvailable())("OCR of scanned PDFs (tesseract-ocr and poppler-utils installed)", () => {
  it("reads the page image and keeps page numbers, instead of indexing the scanner's header", async () => {
    const doc = await parseDocument(await makeScannedPdf(TEXT), "pdf", "scan.pdf");
    expect(doc.metadata.ocr).toBe(true);
    const text = doc.blocks.map((b) => b.text).join(" ").toLowerCase();
    for (const word of ["gearbox", "lubricant", "turbine", "emergency", "inspection"]) expect(text).toContain(word);
    expect(doc.blocks.every((b) => b.page === 1)).toBe(true);
  }, 120_000);

  it("leaves PDFs with a real text layer to the text extractor", async () => {
    const doc = await parseDocument(await makePdf([{ heading: "Plain", paragraphs: TEXT }]), "pdf", "plain.pdf");
    expect(doc.metadata.ocr).toBeUndefined();
  });
});

describe("without OCR", () => {
  it("fails a scanned PDF with a reason that names what is missing", async () => {
    process.env.QUARRY_DISABLE_OCR = "1";
    try {
      const scanned = await makeScannedPdfOrImageOnly();
      await expect(parseDocument(scanned, "pdf", "scan.pdf")).rejects.toThrow(/no text layer .* OCR is not available on this server \(it needs tesseract-ocr and poppler-utils\)/);
    } finally {
      delete process.env.QUARRY_DISABLE_OCR; // test files share their worker process
    }
  });
});

/** The scanned fixture when pdftoppm exists to make it, else a page that is only an image. */
async function makeScannedPdfOrImageOnly(): Promise<Buffer> {
  try {
    execFileSync("pdftoppm", ["-v"], { stdio: "ignore" });
    return await makeScannedPdf(TEXT);
  } catch {
    const pdf = await PDFDocument.create();
    const png = await pdf.embedPng(
      Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgAB4iG8MwAAAABJRU5ErkJggg==", "base64"),
    );
    pdf.addPage([595, 842]).drawImage(png, { x: 0, y: 0, width: 595, height: 842 });
    return Buffer.from(await pdf.save());
  }
}

describe("GET /capabilities", () => {
  it("reports whether scanned PDFs are read with OCR", async () => {
    const { noModelEnv, startServer } = await import("../kit/index.js");
    const s = await startServer(noModelEnv(), { listen: false });
    try {
      const r = await s.call("GET", "/capabilities", { key: (await s.tenant()).adminKey });
      expect(r.body.ocr).toBe(ocrAvailable());
    } finally {
      await s.close();
    }
  });
});
