// dictd dictionaries (GCIDE, FOLDOC, the Jargon File, V.E.R.A.): `<name>.index` lines give each
// headword's offset and length (dictd's base64 numbers) in `<name>.dict.dz`, a gzip stream.
// An entry becomes headword -> definition; pronunciations, etymologies and source tags go.
import fs from "node:fs";
import { gunzipSync } from "node:zlib";
import { makePair, type Pair } from "../sections.js";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function dictdNumber(s: string): number {
  let v = 0;
  for (const c of s) v = v * 64 + B64.indexOf(c);
  return v;
}

/** Markup of the dictionaries' plain-text renderings that carries no meaning for retrieval. */
export function cleanDefinition(entry: string): string {
  return entry
    .replace(/\\[^\\\n]{1,80}\\/g, " ") // GCIDE pronunciation \Sponge\
    .replace(/\[(1913 Webster|Webster 1913 Suppl\.|PJC|WordNet 1\.5|Century Dict\.|[^\]]{0,12}Webster[^\]]{0,12})\]/g, " ")
    .replace(/\[(OE|AS|OF|F|L|Gr|Cf|See|Prob|Perh|From|Fr|It|Sp|G|D|Icel|Dan|Sw|Goth|Skr|Heb|Ar)\.[^\]]*\]/g, " ") // etymology
    .replace(/<[a-z, ]+>/g, " ") // FOLDOC subject tags <body, publication>
    .replace(/\(\d{4}-\d{2}-\d{2}\)/g, " ") // FOLDOC dates
    .replace(/[{}]/g, "")
    .replace(/\[[a-z^'`"]+\]/g, "") // GCIDE accent codes [ae] [u^]
    .replace(/[ \t]+/g, " ");
}

export function* dictdPairs(indexFile: string, dictFile: string): Generator<Pair> {
  const data = gunzipSync(fs.readFileSync(dictFile));
  for (const line of fs.readFileSync(indexFile, "utf8").split("\n")) {
    const [word, off, len] = line.split("\t");
    if (!word || !off || !len || word.startsWith("00-database")) continue;
    const entry = data.subarray(dictdNumber(off), dictdNumber(off) + dictdNumber(len)).toString("utf8");
    // the first line repeats the headword (with pronunciation); the definition follows
    const body = cleanDefinition(entry.slice(entry.indexOf("\n") + 1));
    const p = makePair("gloss", word, [], body);
    if (p) yield p;
  }
}
