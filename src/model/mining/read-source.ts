// One source's files -> training pairs, by format.
import fs from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { htmlSections } from "./html.js";
import { dictdPairs } from "./formats/dictd.js";
import { infoSections } from "./formats/texinfo.js";
import { markdownSections } from "./formats/markdown.js";
import { podSections } from "./formats/pod.js";
import { manPairs, roffSections } from "./formats/roff.js";
import { xmlHelpSections } from "./formats/xml-help.js";
import { wordnetPairs } from "./formats/wordnet.js";
import { definitionPairs, makePair, sectionPairs, type MinedDocument, type Pair } from "./sections.js";
import type { SourceFormat } from "./sources.js";

const documentPairs = (doc: MinedDocument): Pair[] => [...sectionPairs(doc), ...definitionPairs(doc)];

const readText = (file: string): string => {
  const bytes = fs.readFileSync(file);
  return (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
};

/** An info manual's name: bash.info-2.gz -> bash. */
const manualName = (file: string): string => path.basename(file).replace(/\.info(-\d+)?\.gz$/, "");

/** The pairs of one file of a source; a file that cannot be read gives none (and the reason). */
export function filePairs(format: SourceFormat, file: string): { pairs: Pair[]; error?: string } {
  try {
    switch (format) {
      case "html":
        return { pairs: documentPairs(htmlSections(readText(file))) };
      case "xml-help": {
        const doc = xmlHelpSections(readText(file));
        const summary = doc.sections[0] && doc.desc ? makePair("summary", doc.desc, [doc.title], doc.sections[0].text) : null;
        return { pairs: [...sectionPairs(doc), ...(summary ? [summary] : [])] };
      }
      case "man":
        return { pairs: manPairs(roffSections(readText(file))) };
      case "info":
        return { pairs: sectionPairs(infoSections(readText(file), manualName(file))) };
      case "pod":
        return { pairs: documentPairs(podSections(readText(file), path.basename(file, ".pod"))) };
      case "markdown":
        return { pairs: sectionPairs(markdownSections(readText(file), path.basename(path.dirname(file)))) };
      case "dictd":
        return { pairs: [...dictdPairs(file, file.replace(/\.index$/, ".dict.dz"))] };
      case "wordnet":
        return { pairs: [...wordnetPairs(path.dirname(file))] };
    }
  } catch (err) {
    return { pairs: [], error: (err as Error).message };
  }
}
