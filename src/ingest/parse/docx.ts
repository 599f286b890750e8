// DOCX -> HTML (mammoth, which maps Word heading styles to h1..h6) -> the HTML/Markdown path.
import mammoth from "mammoth";
import type { ParsedDocument } from "../types.js";
import { readZipEntry, zipEntryNames } from "../zip.js";
import { cleanInline, finishDocument, titleFromFilename } from "./common.js";
import { ParseError } from "./errors.js";
import { htmlToBlocks } from "./html.js";
import { firstH1 } from "./markdown.js";

const CORRUPT =
  "The file is not a valid DOCX document (ZIP structure is corrupt). Re-save it in Word and upload again.";
const NOT_WORD =
  "The file is not a valid DOCX document (the Word document part is missing). Re-save it in Word as .docx and upload again.";

const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

// Images would arrive as data URIs (megabytes of base64); they carry no indexable text.
const dropImages = mammoth.images.imgElement(() => Promise.resolve({ src: "" }));

function coreTitle(bytes: Buffer): string | undefined {
  const xml = readZipEntry(bytes, "docProps/core.xml", 256 * 1024)?.toString("utf8");
  const m = xml ? /<dc:title>([\s\S]*?)<\/dc:title>/.exec(xml) : null;
  if (!m) return undefined;
  const title = cleanInline(
    m[1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&"),
  );
  return title || undefined;
}

export async function parseDocx(bytes: Buffer, filename: string): Promise<ParsedDocument> {
  const names = zipEntryNames(bytes);
  if (!names) throw new ParseError(CORRUPT);
  if (!names.includes("word/document.xml")) throw new ParseError(NOT_WORD);

  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: bytes },
      { styleMap: STYLE_MAP, convertImage: dropImages, externalFileAccess: false },
    );
    html = result.value;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ParseError(/main document part/i.test(message) ? NOT_WORD : CORRUPT, { cause: err });
  }
  const { blocks } = htmlToBlocks(html, { fragment: true });
  return finishDocument({
    kind: "docx",
    title: firstH1(blocks) ?? coreTitle(bytes) ?? titleFromFilename(filename),
    blocks,
    metadata: {},
  });
}
