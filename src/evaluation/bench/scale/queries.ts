// Queries sampled from the corpus itself, so they look like what users of such a collection ask:
// keyword queries (two or three rare-ish terms of one chunk) and question-like queries (a
// question word around content words of one chunk, in their order). Rarity comes from document
// frequencies over a fixed sample of chunks. Everything is drawn from the run's seed.
import { prng, seedFor } from "./rng.js";

export type QueryKind = "keyword" | "question";

export interface DfSample {
  size: number;
  df: Map<string, number>;
}

const STOP = new Set(
  ("a an and are as at be been but by can could did do does for from had has have how if in into is it its may " +
    "more most must no not of on only or other our should so some such than that the their them then there these " +
    "they this those to use used using was we were what when where which while who why will with would you your " +
    "also any each all one two new see").split(" "),
);

/** the candidate query terms of a text: lower-case words of letters, 3-24 long, not stop words */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z]{2,23}/g) ?? []).filter((t) => !STOP.has(t));
}

export function dfSample(chunks: Iterable<string>): DfSample {
  const df = new Map<string, number>();
  let size = 0;
  for (const c of chunks) {
    size++;
    for (const t of new Set(terms(c))) df.set(t, (df.get(t) ?? 0) + 1);
  }
  return { size, df };
}

/** between "seen more than once in the sample" and "in 1% of it": specific but not typos */
function rareish(s: DfSample, t: string): boolean {
  const n = s.df.get(t) ?? 0;
  return n >= 2 && n <= Math.max(2, s.size * 0.01);
}

function pick<T>(items: T[], n: number, rnd: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length) out.push(pool.splice(Math.floor(rnd() * pool.length), 1)[0]);
  return out;
}

export function keywordQuery(chunk: string, s: DfSample, rnd: () => number): string | null {
  const unique = [...new Set(terms(chunk))];
  let candidates = unique.filter((t) => rareish(s, t));
  if (candidates.length < 2) candidates = unique.filter((t) => t.length >= 4);
  const chosen = pick(candidates, 2 + Math.floor(rnd() * 2), rnd);
  return chosen.length ? chosen.join(" ") : null;
}

const TEMPLATES = ["how do I {}", "what is {}", "how to {}", "why does {} fail", "which {} options are there", "can {}", "where is {} configured", "{} not working"];

export function questionQuery(chunk: string, s: DfSample, rnd: () => number): string | null {
  const all = terms(chunk);
  const specific = all.filter((t) => (s.df.get(t) ?? 0) <= Math.max(2, s.size * 0.05));
  // a chunk of only common words still gets a question (of common words: the costly kind)
  const content = specific.length >= 2 ? specific : all;
  if (content.length === 0) return null;
  const n = 2 + Math.floor(rnd() * 3);
  const start = Math.floor(rnd() * Math.max(1, content.length - n));
  const words = [...new Set(content.slice(start, start + n))].join(" ");
  return TEMPLATES[Math.floor(rnd() * TEMPLATES.length)].replace("{}", words);
}

/** Query number q made from this chunk: even numbers keyword, odd numbers question-like. */
export function makeQuery(seed: number, q: number, chunk: string, s: DfSample): { kind: QueryKind; text: string } | null {
  const rnd = prng(seedFor(seed, "query-text", q));
  const kind: QueryKind = q % 2 === 0 ? "keyword" : "question";
  const text = kind === "keyword" ? keywordQuery(chunk, s, rnd) : questionQuery(chunk, s, rnd);
  return text ? { kind, text } : null;
}

/**
 * Which chunks the queries come from: query q belongs to tenant q mod T and is drawn uniformly
 * from that tenant's chunks (global chunk numbers; tenant t holds [starts[t], starts[t] + sizes[t])).
 */
export function planQueryChunks(seed: number, count: number, starts: number[], sizes: number[]): Map<number, number[]> {
  const rnd = prng(seedFor(seed, "query-plan", 0));
  const plan = new Map<number, number[]>();
  for (let q = 0; q < count; q++) {
    const t = q % starts.length;
    const g = starts[t] + Math.floor(rnd() * sizes[t]);
    plan.set(g, [...(plan.get(g) ?? []), q]);
  }
  return plan;
}
