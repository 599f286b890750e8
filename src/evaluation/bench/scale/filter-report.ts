// The filter and facet bench's tables in the scale report (--filters): recall@10 of each mode
// against the exact filtered ranking, filtered hybrid latency beside unfiltered, and facets.
import type { FilterMeasured } from "./measure-filters.js";

const f1 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(1));
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(3));
const pct = (x: number) => `${(x * 100).toFixed(2)} %`;

export function filterMarkdown(layouts: readonly { label: string; filters?: FilterMeasured }[]): string[] {
  const L: string[] = [];
  for (const l of layouts) {
    const m = l.filters;
    if (!m) continue;
    const base = m.rows[0].hybrid.p95;
    L.push("", `## Filters: ${l.label}`, "");
    L.push(`Recall@10 against the exact filtered top 10 (${m.recall_queries} queries; lexical: the store's unfiltered BM25 ranking walked down to the filter's documents; vector: a full scan; hybrid: the engine's fusion of those two exact lists). Hybrid latency in process, the four variants of each query back to back in rotating order.`, "");
    L.push("| filter | chunks selected | recall@10 lexical | vector | hybrid | hybrid p50 ms | p95 ms | p95 / unfiltered p95 |");
    L.push("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const r of m.rows) {
      const ratio = base && r.hybrid.p95 !== null ? (r.hybrid.p95 / base).toFixed(2) : "—";
      L.push(`| ${r.filter} | ${pct(r.share)} | ${f3(r.recall_at_10.lexical)} | ${f3(r.recall_at_10.vector)} | ${f3(r.recall_at_10.hybrid)} | ${f1(r.hybrid.p50)} | ${f1(r.hybrid.p95)} | ${ratio} |`);
    }
    const f = m.facets;
    L.push("", `Facets ${f.fields.join(", ")} over each hybrid query's matched set (mean ${Math.round(f.mean_matched_documents).toLocaleString("en")} documents): counting alone p50 ${f1(f.direct.p50)} / p95 ${f1(f.direct.p95)} ms; hybrid search with facets p50 ${f1(f.search.p50)} / p95 ${f1(f.search.p95)} ms, without ${f1(f.search_without.p50)} / ${f1(f.search_without.p95)} ms.`);
  }
  return L;
}
