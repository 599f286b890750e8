// Real files for the content suites: PDFs with pdf-lib, DOCX with the docx package, the rest as text.
import { Document, HeadingLevel, Packer, Paragraph, TextRun } from "docx";
import { PDFDocument, StandardFonts } from "pdf-lib";
import type { UploadFile } from "./helpers.js";

export const TEXT = "Quarry keeps a plain text note about glaciers.\n\nGlaciers carve valleys slowly over many centuries.\n";

/** Markdown with nested headings; the expected heading paths are in MARKDOWN_PATHS. */
export const MARKDOWN = `# Field Guide

Intro paragraph about the field guide and its purpose.

## Birds

Birds of the wetland are described here.

### Herons

Herons stand still in shallow water and strike fast.

### Kingfishers

Kingfishers dive for small fish from perches.

## Mammals

Otters live along the riverbanks.

### Beavers

Beavers build dams from branches and mud.
`;

/** heading_path of each chunk of MARKDOWN, in order (the H1 equals the title, so it is left out). */
export const MARKDOWN_PATHS: string[][] = [[], ["Birds"], ["Birds", "Herons"], ["Birds", "Kingfishers"], ["Mammals"], ["Mammals", "Beavers"]];

export const HTML = `<!doctype html><html><head><title>Volcano Notes</title></head><body>
<h1>Volcano Notes</h1><p>Volcanoes erupt molten rock called lava.</p>
<h2>Types</h2><p>Shield volcanoes have gentle slopes formed by fluid lava flows.</p>
</body></html>`;

export const CSV = "name,habitat,diet\nheron,wetland,fish\notter,river,crayfish\nbeaver,pond,bark\n";

export const JSON_DOC = JSON.stringify({ product: "Quarry lantern", features: ["waterproof", "rechargeable"], specs: { lumens: 300 } });

export async function makePdf(pages: { heading: string; body: string }[], title?: string): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  if (title) pdf.setTitle(title);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const p of pages) {
    const page = pdf.addPage([595, 842]);
    page.drawText(p.heading, { x: 50, y: 780, font, size: 20 });
    page.drawText(p.body, { x: 50, y: 740, font, size: 11 });
  }
  return Buffer.from(await pdf.save());
}

export async function makeDocx(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: "Harbor Handbook", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun("Ships dock at the northern pier every morning.")] }),
          new Paragraph({ text: "Safety", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ children: [new TextRun("Wear a life jacket on the pontoons at all times.")] }),
        ],
      },
    ],
  });
  return Buffer.from(await Packer.toBuffer(doc));
}

/** The mixed batch: seven good files, one corrupt DOCX, one unsupported type. */
export async function mixedBatch(): Promise<UploadFile[]> {
  const docx = await makeDocx();
  return [
    { name: "notes.txt", data: TEXT, type: "text/plain" },
    { name: "guide.md", data: MARKDOWN, type: "text/markdown" },
    { name: "volcano.html", data: HTML, type: "text/html" },
    {
      name: "report.pdf",
      data: await makePdf(
        [
          { heading: "Tides", body: "Tides rise and fall twice a day along the coast." },
          { heading: "Currents", body: "Ocean currents move warm water toward the poles." },
        ],
        "Ocean Report",
      ),
      type: "application/pdf",
    },
    { name: "handbook.docx", data: docx, type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
    { name: "animals.csv", data: CSV, type: "text/csv" },
    { name: "product.json", data: JSON_DOC, type: "application/json" },
    // a DOCX cut in half: a ZIP without its central directory
    { name: "broken.docx", data: docx.subarray(0, Math.floor(docx.length / 2)) },
    // a PNG signature plus junk
    { name: "photo.png", data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]), type: "image/png" },
  ];
}

export { makeZip } from "../ingest/fixtures.js";

