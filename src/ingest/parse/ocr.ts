// OCR of scanned PDFs with Debian's tools: poppler's pdftoppm renders each page to a grey PNG,
// Tesseract reads it. Both are found on the PATH at first use (and reported in /capabilities);
// without them a PDF with no text layer fails with a reason saying so, never `indexed` empty.
import { execFile, execFileSync } from "node:child_process";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Pages OCR'd at most per document: OCR costs seconds a page. */
export const MAX_OCR_PAGES = 100;
const DPI = 200;

let available: boolean | undefined;

function has(cmd: string, arg: string): boolean {
  try {
    execFileSync(cmd, [arg], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** True when both pdftoppm and tesseract can run here (checked once). */
export function ocrAvailable(): boolean {
  if (process.env.QUARRY_DISABLE_OCR === "1") return false;
  available ??= has("tesseract", "--version") && has("pdftoppm", "-v");
  return available;
}

export interface OcrPage {
  page: number;
  text: string;
}

/** Text of each page (1-based), in order; pages past MAX_OCR_PAGES are not read. */
export async function ocrPdf(bytes: Uint8Array, lang = "eng"): Promise<OcrPage[]> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "quarry-ocr-"));
  try {
    const pdf = path.join(dir, "in.pdf");
    await fsp.writeFile(pdf, bytes);
    await run("pdftoppm", ["-r", String(DPI), "-gray", "-png", "-l", String(MAX_OCR_PAGES), pdf, path.join(dir, "p")], { timeout: 300_000 });
    // pdftoppm names pages p-1.png .. p-N.png, zero-padded to the width of N
    const images = (await fsp.readdir(dir))
      .map((f) => ({ f, n: Number(/^p-(\d+)\.png$/.exec(f)?.[1]) }))
      .filter((x) => Number.isInteger(x.n))
      .sort((a, b) => a.n - b.n);
    const pages: OcrPage[] = [];
    for (const { f, n } of images) {
      const { stdout } = await run("tesseract", [path.join(dir, f), "stdout", "-l", lang, "--psm", "3"], {
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      });
      pages.push({ page: n, text: stdout });
    }
    return pages;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
