// The filter bench's metadata and filters (`--filters`, issue 28's targets): every loaded document
// gets a skewed `product`, a numeric `priority` (0-99) and a `file_type`, assigned so that each
// value holds its share of the tenant's chunks (not of its documents: a long man page would
// otherwise move a 1 % value to 3 %), and three filters select about 1 %, 10 % and 50 % of them.
// Each filter comes as the API's JSON and as a predicate written apart from the stores' SQL, from
// which the bench computes the exact filtered rankings.

export type BenchMetadata = { product: string; priority: number; file_type: string };

/** product values and their share of the chunks: one at 50 %, one at 10 %, one at 1 % */
export const PRODUCT_SHARES: Record<string, number> = { core: 0.5, api: 0.2, cli: 0.1, web: 0.09, sdk: 0.05, docs: 0.03, mobile: 0.02, edge: 0.01 };
export const FILE_TYPE_SHARES: Record<string, number> = { markdown: 0.6, html: 0.3, pdf: 0.1 };
/** priority 0..99, 1 % of the chunks each: a range of n values holds n % */
export const PRIORITY_SHARES: Record<string, number> = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [String(i), 0.01]));

export interface BenchFilter {
  name: string;
  /** the share of the chunks it was built to select */
  target: number;
  /** as POST /search takes it */
  json: Record<string, unknown>;
  holds(m: BenchMetadata): boolean;
}

export const BENCH_FILTERS: BenchFilter[] = [
  { name: "1 %: product = edge", target: 0.01, json: { "metadata.product": "edge" }, holds: (m) => m.product === "edge" },
  { name: "10 %: 0 <= priority < 10", target: 0.1, json: { "metadata.priority": { $gte: 0, $lt: 10 } }, holds: (m) => m.priority >= 0 && m.priority < 10 },
  { name: "50 %: product != core", target: 0.5, json: { "metadata.product": { $ne: "core" } }, holds: (m) => m.product !== "core" },
];

/** the facet fields the bench counts */
export const BENCH_FACETS = ["metadata.product", "file_type", "metadata.priority"];

/**
 * Deals values to items of known sizes so that each value's total size is its share of the whole:
 * the largest items first, each to the value with the most room left relative to its target
 * (among those it fits in, if any), so the small items fill what is left and every value gets a
 * mix of sizes. Deterministic.
 */
export function dealShares(sizes: readonly number[], shares: Record<string, number>): string[] {
  const values = Object.keys(shares);
  const sum = Object.values(shares).reduce((a, b) => a + b, 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  const target = values.map((v) => (shares[v] / sum) * total);
  const room = [...target];
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[b] - sizes[a] || a - b);
  const out: string[] = new Array(sizes.length);
  for (const i of order) {
    let best = -1;
    // ties (equal shares, or items too big for any value) go round the values, not to the first
    for (let j = 0; j < values.length; j++) {
      const v = (i + j) % values.length;
      const fits = room[v] >= sizes[i];
      const bestFits = best >= 0 && room[best] >= sizes[i];
      if (best < 0 || (fits && !bestFits) || (fits === bestFits && room[v] / target[v] > room[best] / target[best])) best = v;
    }
    room[best] -= sizes[i];
    out[i] = values[best];
  }
  return out;
}

/** The three fields for documents of these chunk counts (one tenant: each tenant holds the shares). */
export function dealMetadata(sizes: readonly number[]): BenchMetadata[] {
  const product = dealShares(sizes, PRODUCT_SHARES);
  const priority = dealShares(sizes, PRIORITY_SHARES);
  const fileType = dealShares(sizes, FILE_TYPE_SHARES);
  return sizes.map((_, i) => ({ product: product[i], priority: Number(priority[i]), file_type: fileType[i] }));
}

/** the share of the chunks each filter selects: what the report states next to its target */
export function filterShares(docs: readonly { metadata: BenchMetadata | null; count: number }[]): number[] {
  const total = docs.reduce((n, d) => n + d.count, 0);
  return BENCH_FILTERS.map((f) => docs.reduce((n, d) => n + (d.metadata && f.holds(d.metadata) ? d.count : 0), 0) / Math.max(1, total));
}
