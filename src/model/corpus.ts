// The training pairs, tokenized once into compact arrays: every text is a bag of distinct tokens
// with counts. Tokens get global ids in order of first appearance; the vocabulary (the tokens
// that get a trained row) is chosen afterwards from their counts, and the rest keep only their
// identity hash (see identity.ts).
import fs from "node:fs";
import readline from "node:readline";
import { modelTokens } from "./tokenizer.js";
import { tokenHash } from "./identity.js";

export interface Bags {
  /** text i's tokens are ids[offsets[i] .. offsets[i+1]) */
  offsets: Uint32Array;
  ids: Int32Array;
  counts: Uint16Array;
}

export interface PairCorpus {
  /** every distinct token, by global id */
  tokens: string[];
  /** occurrences of each global id over all texts */
  frequency: Uint32Array;
  /** texts containing each global id (passages only: the document frequency the weights start from) */
  passageDf: Uint32Array;
  queries: Bags;
  passages: Bags;
  /** the source id of each pair */
  sources: string[];
  sourceOf: Uint16Array;
}

/** An append-only typed array (a JS array of 10^8 numbers would take gigabytes). */
class Growable<T extends Int32Array | Uint32Array | Uint16Array> {
  length = 0;
  constructor(private data: T) {}

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new (this.data.constructor as new (n: number) => T)(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  bump(i: number): void {
    this.data[i]!++;
  }

  done(): T {
    return this.data.slice(0, this.length) as T;
  }
}

class BagBuilder {
  private offsets = new Growable(new Uint32Array(1 << 16));
  private ids = new Growable(new Int32Array(1 << 20));
  private counts = new Growable(new Uint16Array(1 << 20));

  constructor() {
    this.offsets.push(0);
  }

  add(tokens: number[]): void {
    const c = new Map<number, number>();
    for (const t of tokens) c.set(t, (c.get(t) ?? 0) + 1);
    for (const [t, n] of c) {
      this.ids.push(t);
      this.counts.push(Math.min(n, 65535));
    }
    this.offsets.push(this.ids.length);
  }

  build(): Bags {
    return { offsets: this.offsets.done(), ids: this.ids.done(), counts: this.counts.done() };
  }
}

/** A training pair as pairs.jsonl holds it: its source, the asking text and the passage. */
export interface TextPair {
  s: string;
  q: string;
  p: string;
}

/** Tokenizes pairs one at a time into a PairCorpus. */
class PairCorpusBuilder {
  private ids = new Map<string, number>();
  private tokens: string[] = [];
  private frequency = new Growable(new Uint32Array(1 << 16));
  private passageDf = new Growable(new Uint32Array(1 << 16));
  private sources: string[] = [];
  private sourceIds = new Map<string, number>();
  private sourceOf: number[] = [];
  private q = new BagBuilder();
  private p = new BagBuilder();

  private idsOf(text: string): number[] {
    return modelTokens(text).map((t) => {
      let id = this.ids.get(t);
      if (id === undefined) {
        id = this.tokens.length;
        this.ids.set(t, id);
        this.tokens.push(t);
        this.frequency.push(0);
        this.passageDf.push(0);
      }
      this.frequency.bump(id);
      return id;
    });
  }

  add(pair: TextPair): void {
    const pt = this.idsOf(pair.p);
    for (const t of new Set(pt)) this.passageDf.bump(t);
    this.q.add(this.idsOf(pair.q));
    this.p.add(pt);
    let s = this.sourceIds.get(pair.s);
    if (s === undefined) this.sourceIds.set(pair.s, (s = this.sources.push(pair.s) - 1));
    this.sourceOf.push(s);
  }

  get size(): number {
    return this.sourceOf.length;
  }

  build(): PairCorpus {
    return {
      tokens: this.tokens,
      frequency: this.frequency.done(),
      passageDf: this.passageDf.done(),
      queries: this.q.build(),
      passages: this.p.build(),
      sources: this.sources,
      sourceOf: Uint16Array.from(this.sourceOf),
    };
  }
}

/** Reads pairs.jsonl ({s, k, q, p} per line) into bags; `onProgress` sees the pair count. */
export async function readPairCorpus(file: string, onProgress?: (pairs: number) => void): Promise<PairCorpus> {
  const builder = new PairCorpusBuilder();
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    builder.add(JSON.parse(line) as TextPair);
    if (builder.size % 50_000 === 0) onProgress?.(builder.size);
  }
  onProgress?.(builder.size);
  return builder.build();
}

/** The pairs, held in memory, as a corpus (a collection's own pairs, collection-adapt.ts). */
export function pairCorpusOf(pairs: Iterable<TextPair>): PairCorpus {
  const builder = new PairCorpusBuilder();
  for (const pair of pairs) builder.add(pair);
  return builder.build();
}

/** Identity hashes of every global token, for the model's seed. */
export function tokenHashes(corpus: PairCorpus, seed: number): Uint32Array {
  return Uint32Array.from(corpus.tokens, (t) => tokenHash(t, seed));
}

const CACHE_MAGIC = "QPC1";

/** Writes the tokenized corpus beside its pairs file, so the next run skips tokenizing. */
export function writeCorpusCache(file: string, c: PairCorpus): void {
  const header = Buffer.from(JSON.stringify({ tokens: c.tokens, sources: c.sources }), "utf8");
  const arrays = [c.frequency, c.passageDf, c.queries.offsets, c.queries.ids, c.queries.counts, c.passages.offsets, c.passages.ids, c.passages.counts, c.sourceOf];
  const lengths = Buffer.alloc(4 * (arrays.length + 1));
  lengths.writeUInt32LE(header.length, 0);
  arrays.forEach((a, i) => lengths.writeUInt32LE(a.length, 4 * (i + 1)));
  const parts = [Buffer.from(CACHE_MAGIC), lengths, header, ...arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))];
  fs.writeFileSync(`${file}.tmp`, Buffer.concat(parts.map((p) => pad4(p))));
  fs.renameSync(`${file}.tmp`, file);
}

function pad4(b: Buffer): Buffer {
  return b.length % 4 === 0 ? b : Buffer.concat([b, Buffer.alloc(4 - (b.length % 4))]);
}

export function readCorpusCache(file: string): PairCorpus {
  const buf = fs.readFileSync(file);
  if (buf.subarray(0, 4).toString() !== CACHE_MAGIC) throw new Error(`${file} is not a corpus cache`);
  const n = 9;
  const len = (i: number) => buf.readUInt32LE(4 + 4 * i);
  let at = 4 + 4 * (n + 1);
  const headerLen = len(0);
  const header = JSON.parse(buf.subarray(at, at + headerLen).toString("utf8")) as { tokens: string[]; sources: string[] };
  at += Math.ceil(headerLen / 4) * 4;
  const kinds = [Uint32Array, Uint32Array, Uint32Array, Int32Array, Uint16Array, Uint32Array, Int32Array, Uint16Array, Uint16Array] as const;
  const arrays = kinds.map((K, i) => {
    const count = len(i + 1);
    const bytes = count * K.BYTES_PER_ELEMENT;
    const copy = new Uint8Array(bytes);
    copy.set(buf.subarray(at, at + bytes));
    at += Math.ceil(bytes / 4) * 4;
    return new K(copy.buffer);
  });
  const [frequency, passageDf, qo, qi, qc, po, pi, pc, sourceOf] = arrays as unknown as [Uint32Array, Uint32Array, Uint32Array, Int32Array, Uint16Array, Uint32Array, Int32Array, Uint16Array, Uint16Array];
  return { tokens: header.tokens, sources: header.sources, frequency, passageDf, queries: { offsets: qo, ids: qi, counts: qc }, passages: { offsets: po, ids: pi, counts: pc }, sourceOf };
}
