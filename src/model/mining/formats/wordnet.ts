// WordNet 3.0's database (data.noun, data.verb, data.adj, data.adv): each synset is a set of
// synonyms with a gloss and pointers. A word asks for its synset described by the other words and
// the gloss (so the pair is matched by meaning, not by the word itself), and for its hypernym's
// description (a dog is a canine): the word relations that documentation text rarely spells out.
import fs from "node:fs";
import path from "node:path";
import { makePair, type Pair } from "../sections.js";

interface Synset {
  words: string[];
  gloss: string;
  hypernyms: string[];
}

const FILES = ["noun", "verb", "adj", "adv"];
/** words per synset that ask for it: the first few are the common names */
const ASKING_WORDS = 3;

function parseLine(line: string): [string, Synset] | null {
  if (line.startsWith(" ")) return null; // the licence header
  const bar = line.indexOf(" | ");
  const fields = line.slice(0, bar < 0 ? line.length : bar).split(" ");
  const count = parseInt(fields[3]!, 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(fields[4 + 2 * i]!.replace(/_/g, " ").replace(/\(.*\)$/, ""));
  const pointers = Number(fields[4 + 2 * count]);
  const hypernyms: string[] = [];
  for (let i = 0; i < pointers; i++) {
    const at = 5 + 2 * count + 4 * i;
    if (fields[at] === "@" || fields[at] === "@i") hypernyms.push(`${fields[at + 2]}:${fields[at + 1]}`);
  }
  return [`${fields[2] === "s" ? "a" : fields[2]}:${fields[0]}`, { words, gloss: bar < 0 ? "" : line.slice(bar + 3).trim(), hypernyms }];
}

export function readWordnet(dir: string): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const f of FILES) {
    for (const line of fs.readFileSync(path.join(dir, `data.${f}`), "utf8").split("\n")) {
      const parsed = line ? parseLine(line) : null;
      if (parsed) synsets.set(parsed[0], parsed[1]);
    }
  }
  return synsets;
}

const describe = (s: Synset, without: string): string => {
  const others = s.words.filter((w) => w !== without);
  return others.length ? `${others.join(", ")}: ${s.gloss}` : s.gloss;
};

export function* wordnetPairs(dir: string): Generator<Pair> {
  const synsets = readWordnet(dir);
  for (const s of synsets.values()) {
    for (const w of s.words.slice(0, ASKING_WORDS)) {
      const own = makePair("synonym", w, [], describe(s, w));
      if (own) yield own;
      const parent = s.hypernyms.length ? synsets.get(s.hypernyms[0]!) : undefined;
      const up = parent ? makePair("synonym", w, [], describe(parent, w)) : null;
      if (up) yield up;
    }
  }
}
