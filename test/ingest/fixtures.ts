// Real files built in the tests: PDFs with pdf-lib, DOCX with the docx package, ZIPs by hand.
import { crc32 } from "node:zlib";
import {
  Document,
  HeadingLevel,
  Packer,
  Paragraph,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from "docx";
import { PDFDocument, StandardFonts } from "pdf-lib";

export interface PdfPage {
  heading?: string;
  paragraphs: string[];
}

/** A PDF with a heading (20 pt) and wrapped body paragraphs (11 pt) per page, plus page numbers. */
export async function makePdf(pages: PdfPage[], opts: { title?: string } = {}): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  if (opts.title) pdf.setTitle(opts.title);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pages.forEach((p, index) => {
    const page = pdf.addPage([595, 842]);
    let y = 780;
    if (p.heading) {
      page.drawText(p.heading, { x: 50, y, font, size: 20 });
      y -= 40;
    }
    for (const para of p.paragraphs) {
      for (const line of wrap(para, 80)) {
        page.drawText(line, { x: 50, y, font, size: 11 });
        y -= 14;
      }
      y -= 12;
    }
    page.drawText(String(index + 1), { x: 290, y: 30, font, size: 9 });
  });
  return Buffer.from(await pdf.save());
}

/** A PDF whose only page has drawings but no text, like a scan without OCR. */
export async function makeImageOnlyPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  page.drawRectangle({ x: 50, y: 50, width: 400, height: 600 });
  return Buffer.from(await pdf.save());
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export async function makeDocx(): Promise<Buffer> {
  const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] });
  const doc = new Document({
    title: "Quarterly Report Metadata",
    sections: [
      {
        children: [
          new Paragraph({ text: "Quarterly Report", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun("Revenue grew strongly this quarter. "), new TextRun({ text: "Costs fell.", bold: true })] }),
          new Paragraph({ text: "Regional Results", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "Europe led the growth, followed by Asia." }),
          new Paragraph({ text: "Europe up twelve percent", bullet: { level: 0 } }),
          new Paragraph({ text: "Asia up nine percent", bullet: { level: 0 } }),
          new Table({
            rows: [
              new TableRow({ children: [cell("Region"), cell("Growth")] }),
              new TableRow({ children: [cell("Europe"), cell("12%")] }),
              new TableRow({ children: [cell("Asia"), cell("9%")] }),
            ],
          }),
          new Paragraph({ text: "Outlook", heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: "We expect steady demand next year." }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

/** A ZIP archive with stored (uncompressed) entries. */
export function makeZip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const nameBuf = Buffer.from(name, "utf8");
    const data = Buffer.from(content, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, data);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(Object.keys(files).length, 8);
  eocd.writeUInt16LE(Object.keys(files).length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

/** Deterministic pseudo-random English-like words (no RNG dependency, stable across runs). */
export function words(count: number, seed = 1): string[] {
  const vocab = [
    "search", "index", "query", "document", "token", "vector", "ranking", "fusion", "chunk", "section",
    "heading", "paragraph", "retrieval", "embedding", "lexical", "semantic", "tenant", "collection",
    "source", "upload", "crawler", "parser", "relevance", "benchmark", "latency", "throughput", "cache",
    "the", "of", "and", "a", "to", "in", "is", "for", "with", "on", "by", "as", "from", "internationalization",
    "counterintuitively", "electroencephalography", "straightforward", "über", "naïve", "café",
  ];
  let state = seed;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out.push(vocab[state % vocab.length]);
  }
  return out;
}

/** Sentences of 8..20 words from `words`, capitalised and full-stopped. */
export function prose(wordCount: number, seed = 1): string {
  const ws = words(wordCount, seed);
  const sentences: string[] = [];
  let i = 0;
  let n = 8;
  while (i < ws.length) {
    const s = ws.slice(i, i + n);
    sentences.push(`${s[0][0].toUpperCase()}${s[0].slice(1)} ${s.slice(1).join(" ")}.`.replace(" .", "."));
    i += n;
    n = 8 + ((n * 7) % 13);
  }
  return sentences.join(" ");
}
