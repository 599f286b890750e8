// The scale bench's report: JSON (everything) and Markdown (the tables docs/benchmarks.md quotes),
// written to bench-results/scale-<timestamp>.{json,md}.
import fs from "node:fs";
import path from "node:path";
import type { Measured, Latency } from "./measure.js";
import type { Mode } from "./adapter.js";
import type { FilterMeasured } from "./measure-filters.js";
import { filterMarkdown } from "./filter-report.js";

export interface LayoutResult extends Measured {
  label: string;
  tenants: number;
  chunks_per_tenant: number;
  chunks: number;
  documents: number;
  composed_chunks: number;
  queries: { count: number; keyword: number; question: number };
  build_ms: number;
  write_ms: number;
  /** until the vector graphs held every stored vector, after the load */
  graph_ms: number;
  /** chunks per second of the store's bulk write path (vector generation left out) */
  chunks_per_s: number;
  disk_bytes: number;
  disk_bytes_per_chunk: number;
  /** time to open the runtime on the built data (a restart) */
  open_ms: number;
  /** --filters (measure-filters.ts) */
  filters?: FilterMeasured;
}

export interface ScaleReport {
  date: string;
  command: string;
  machine: { cpus: number; cpu_model: string; memory_gb: number; node: string; platform: string; load_average: number[] };
  seed: number;
  corpus: {
    sources: string[];
    extraction_ms: number;
    real_documents: number;
    real_chunks: number;
    duplicates_dropped: number;
    by_origin: Record<string, { documents: number; chunks: number; words: number }>;
    note: string;
  };
  vectors: string;
  layouts: LayoutResult[];
  total_ms: number;
}

const f1 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(1));
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(3));
const int = (x: number) => Math.round(x).toLocaleString("en");
const mb = (x: number | null) => (x === null ? "—" : `${Math.round(x / 2 ** 20).toLocaleString("en")} MB`);

function latencyRows(label: string, path: string, lat: Record<Mode, Latency>): string[] {
  return (["lexical", "vector", "hybrid"] as Mode[]).map((m) => {
    const l = lat[m];
    return `| ${label} | ${path} | ${m} | ${f1(l.p50)} | ${f1(l.p95)} | ${f1(l.p99)} | ${f1(l.mean)} | ${l.count} | ${l.errors} |`;
  });
}

export function renderScaleMarkdown(r: ScaleReport): string {
  const L: string[] = [];
  L.push(`# Quarry scale bench — ${r.date}`, "");
  L.push(`Command: \`${r.command}\``);
  L.push(`Machine: ${r.machine.cpus} cores (${r.machine.cpu_model}), ${r.machine.memory_gb} GB, Node ${r.machine.node}; load average at the end ${r.machine.load_average.join(" / ")} (shared machine: other work was running).`);
  const c = r.corpus;
  const origins = Object.entries(c.by_origin).map(([k, v]) => `${k} ${int(v.documents)} documents / ${int(v.chunks)} chunks`).join(", ");
  L.push(`Corpus: ${c.sources.join("; ")}. Real text: ${int(c.real_documents)} documents, ${int(c.real_chunks)} chunks (${origins}; ${int(c.duplicates_dropped)} duplicate files dropped), read in ${f1(c.extraction_ms / 1000)} s. ${c.note}`);
  L.push(`Vectors: ${r.vectors}.`, "");
  L.push("## Build, memory, disk, recall", "");
  L.push("| layout | chunks (composed) | documents | build s (store writes) | chunks/s (store) | graphs s | open s | RSS | peak RSS | disk bytes/chunk | recall@10 | recall@10 filtered | queries (keyword/question) |");
  L.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const l of r.layouts) {
    L.push(
      `| ${l.label} | ${int(l.chunks)} (${int(l.composed_chunks)}) | ${int(l.documents)} | ${f1(l.build_ms / 1000)} (${f1(l.write_ms / 1000)}) | ${int(l.chunks_per_s)} | ${f1((l.graph_ms ?? 0) / 1000)} | ${f1(l.open_ms / 1000)} | ${mb(l.memory.rss_bytes)} | ${mb(l.memory.peak_rss_bytes)} | ${int(l.disk_bytes_per_chunk)} | ${f3(l.recall_at_10.all)} | ${f3(l.recall_at_10.filtered)} | ${l.queries.count} (${l.queries.keyword}/${l.queries.question}) |`,
    );
  }
  L.push("", "## Latency (ms, sequential, one query at a time)", "");
  L.push("| layout | path | mode | p50 | p95 | p99 | mean | queries | errors |");
  L.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const l of r.layouts) {
    L.push(...latencyRows(l.label, "in process", l.in_process));
    if (l.http) L.push(...latencyRows(l.label, "HTTP", l.http));
  }
  const emb = r.layouts.find((l) => l.query_embedding)?.query_embedding;
  if (emb) L.push("", `Query embedding by the real model (left out of the synthetic-vector hybrid rows above; add it for a production hybrid query): p50 ${f1(emb.p50)} ms, p95 ${f1(emb.p95)} ms.`);
  L.push(...filterMarkdown(r.layouts));
  L.push("", `Answered as: ${[...new Set(r.layouts.flatMap((l) => l.answered_as))].join(", ")}. Total bench time: ${f1(r.total_ms / 1000)} s.`);
  return L.join("\n") + "\n";
}

export function writeScaleReport(r: ScaleReport, outDir: string): { json: string; md: string } {
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = `scale-${r.date.replace(/[:.]/g, "-")}`;
  const json = path.join(outDir, `${stamp}.json`);
  const md = path.join(outDir, `${stamp}.md`);
  fs.writeFileSync(json, JSON.stringify(r, null, 2));
  fs.writeFileSync(md, renderScaleMarkdown(r));
  return { json, md };
}
