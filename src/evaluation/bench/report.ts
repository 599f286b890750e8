// The bench report: one JSON document and a Markdown rendering of it (also printed), with the
// targets of the search issue checked against the numbers of this run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { QualityRow } from "./quality.js";
import type { SpeedResult } from "./speed.js";
import type { IngestResult } from "./ingest.js";
import type { LoadStats } from "./load.js";
import type { PublishedScore } from "../beir/beir-catalog.js";
import type { LatencySummary } from "../ranking-metrics.js";

/** Shape of the former in-bench scale row that the report still types (the dataset bench no longer fills it). */
export interface ScaleResult {
  chunks: number;
  build_ms: number;
  hybrid: LatencySummary;
  lexical: LatencySummary;
}

export interface SuiteCheck {
  suite_id: string;
  /** ndcg_at_k of POST /benchmarks/{id}/run's code path over the same cases */
  run_ndcg_at_10: number;
  /** what the bench computed independently for the same queries and settings */
  bench_ndcg_at_10: number;
  equal_to_3_decimals: boolean;
}

export interface BenchReport {
  date: string;
  command: string;
  /** the store measured (sqlite, or postgres / citus: a migrate-data copy of the same load) */
  store?: string;
  /** postgres, citus: seconds migrate-data took to copy the load */
  postgres_copy_s?: number;
  machine: { cpus: number; cpu_model: string; memory_gb: number; node: string; platform: string; load_average: number[] };
  dataset: { name: string; path: string; split: string; queries: number; documents: number; chunks: number; reduced_corpus: boolean };
  /** name: the model and its file's version (load-marker.ts loadedModel) */
  model: { profile: string; state: string; name?: string };
  load: LoadStats;
  quality: QualityRow[];
  published: PublishedScore[];
  suite_check: SuiteCheck | null;
  speed: SpeedResult | null;
  ingest: IngestResult | null;
  scale: ScaleResult | null;
  /** --adapt: the adaptation the measured collection got first (the endpoint's answer, abridged) */
  adaptation?: Record<string, unknown>;
  targets: Target[];
  total_ms: number;
}

export interface Target {
  target: string;
  measured: string;
  met: boolean | null;
}

const f3 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(3));
const f4 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(4));
const f1 = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(1));

export function machineInfo(): BenchReport["machine"] {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpu_model: cpus[0]?.model ?? "unknown",
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** The search issue's targets, checked against this run (null = not measured). */
export function checkTargets(r: Omit<BenchReport, "targets" | "total_ms">): Target[] {
  const row = (label: string) => r.quality.find((q) => q.label === label);
  const lex = row("lexical only");
  const vec = row("vector only");
  const hyb = row("hybrid (deployment default)");
  const out: Target[] = [];
  out.push({ target: "lexical-only nDCG@10 >= 0.69", measured: f4(lex?.ndcg_at_10), met: lex ? lex.ndcg_at_10 >= 0.69 : null });
  if (lex && vec && hyb) {
    const best = Math.max(lex.ndcg_at_10, vec.ndcg_at_10);
    out.push({
      target: "hybrid nDCG@10 >= best single mode - 0.005",
      measured: `${f4(hyb.ndcg_at_10)} vs ${f4(best)} (${hyb.ndcg_at_10 - best >= 0 ? "+" : ""}${(hyb.ndcg_at_10 - best).toFixed(4)})`,
      met: vec.answered === "vector" ? hyb.ndcg_at_10 >= best - 0.005 : null,
    });
  }
  const s = r.speed;
  out.push({ target: "hybrid p50 < 15 ms over HTTP (query embedding included)", measured: s ? `${f1(s.hybrid.p50)} ms` : "not run", met: s ? (s.hybrid.p50 ?? Infinity) < 15 : null });
  out.push({ target: "hybrid p95 < 40 ms over HTTP", measured: s ? `${f1(s.hybrid.p95)} ms` : "not run", met: s ? (s.hybrid.p95 ?? Infinity) < 40 : null });
  out.push({ target: "lexical p50 < 5 ms over HTTP", measured: s ? `${f1(s.lexical.p50)} ms` : "not run", met: s ? (s.lexical.p50 ?? Infinity) < 5 : null });
  out.push({
    target: "hybrid >= 300 QPS with 8 clients",
    measured: s ? `${f1(s.qps_hybrid.qps)} QPS (${s.qps_hybrid.clients} clients)` : "not run",
    met: s ? s.qps_hybrid.qps >= 300 && s.qps_hybrid.clients === 8 : null,
  });
  const e = r.ingest?.embedding;
  out.push({ target: "ingest embedding throughput within 1.5x of the bare model", measured: e ? `${e.ratio.toFixed(2)}x` : "not run", met: e ? e.ratio <= 1.5 : null });
  if (r.scale) {
    out.push({
      target: ">= 200,000 chunks: hybrid p95 < 100 ms",
      measured: `${f1(r.scale.hybrid.p95)} ms at ${r.scale.chunks} chunks`,
      met: r.scale.chunks >= 200_000 ? (r.scale.hybrid.p95 ?? Infinity) < 100 : null,
    });
  }
  if (r.suite_check) {
    out.push({
      target: "suite run nDCG@10 = bench nDCG@10 (3 decimals)",
      measured: `${f4(r.suite_check.run_ndcg_at_10)} vs ${f4(r.suite_check.bench_ndcg_at_10)}`,
      met: r.suite_check.equal_to_3_decimals,
    });
  }
  return out;
}

export function renderMarkdown(r: BenchReport): string {
  const L: string[] = [];
  const d = r.dataset;
  L.push(`# Quarry bench — ${d.name} (${d.split}), ${r.store ?? "sqlite"} store, ${r.date}`);
  L.push("");
  L.push(`Command: \`${r.command}\``);
  L.push(
    `Machine: ${r.machine.cpus} cores (${r.machine.cpu_model}), ${r.machine.memory_gb} GB, Node ${r.machine.node}; load average at the end ${r.machine.load_average.join(" / ")}.`,
  );
  if (r.postgres_copy_s !== undefined) {
    L.push(`Store: ${r.store === "citus" ? "PostgreSQL on a Citus cluster (tables distributed by tenant)" : "PostgreSQL"}, loaded by copying the SQLite load with migrate-data (stored vectors, no re-embedding) in ${f1(r.postgres_copy_s)} s.`);
  }
  L.push(
    `Data: ${d.documents} documents, ${d.chunks} chunks, ${d.queries} queries${d.reduced_corpus ? " (reduced corpus: not comparable with published scores)" : ""}. Model: ${r.model.profile} (${r.model.state}).`,
  );
  L.push("");
  L.push("## Quality (top 10 documents per query, one hit per document)");
  L.push("");
  L.push("| mode | fusion | nDCG@10 | recall@10 | MRR@10 | answered as |");
  L.push("| --- | --- | --- | --- | --- | --- |");
  for (const q of r.quality) L.push(`| ${q.label} | ${q.fusion} | ${f4(q.ndcg_at_10)} | ${f4(q.recall_at_10)} | ${f4(q.mrr_at_10)} | ${q.answered} |`);
  if (r.published.length) {
    L.push("");
    L.push("Published nDCG@10 on this data set: " + r.published.map((p) => `${p.system} ${f3(p.ndcg_at_10)}`).join("; ") + " (../shared/datasets/PUBLISHED_SCORES.md).");
  }
  if (r.suite_check) {
    L.push("");
    L.push(
      `Suite run (POST /benchmarks/{id}/run code path, same cases): nDCG@10 ${f4(r.suite_check.run_ndcg_at_10)}; bench computed ${f4(r.suite_check.bench_ndcg_at_10)} — ${r.suite_check.equal_to_3_decimals ? "equal" : "DIFFERENT"} to 3 decimals.`,
    );
  }
  if (r.speed) {
    const s = r.speed;
    L.push("");
    L.push("## Speed over HTTP (loopback, search-scope key, unseen queries so every hybrid query is embedded)");
    L.push("");
    L.push("| mode | p50 ms | p95 ms | mean ms | QPS (clients) | QPS p95 ms | errors |");
    L.push("| --- | --- | --- | --- | --- | --- | --- |");
    L.push(`| hybrid (${s.mode}) | ${f1(s.hybrid.p50)} | ${f1(s.hybrid.p95)} | ${f1(s.hybrid.mean)} | ${f1(s.qps_hybrid.qps)} (${s.qps_hybrid.clients}) | ${f1(s.qps_hybrid.latency.p95)} | ${s.hybrid.errors + s.qps_hybrid.errors} |`);
    L.push(`| lexical | ${f1(s.lexical.p50)} | ${f1(s.lexical.p95)} | ${f1(s.lexical.mean)} | ${f1(s.qps_lexical.qps)} (${s.qps_lexical.clients}) | ${f1(s.qps_lexical.latency.p95)} | ${s.lexical.errors + s.qps_lexical.errors} |`);
  }
  if (r.scale) {
    L.push("");
    L.push(
      `Scale: ${r.scale.chunks} synthetic chunks (built in ${(r.scale.build_ms / 1000).toFixed(0)} s): hybrid p50 ${f1(r.scale.hybrid.p50)} ms, p95 ${f1(r.scale.hybrid.p95)} ms; ` +
        `lexical p50 ${f1(r.scale.lexical.p50)} ms, p95 ${f1(r.scale.lexical.p95)} ms.`,
    );
  }
  if (r.ingest) {
    const i = r.ingest;
    L.push("");
    L.push("## Ingest");
    L.push("");
    L.push("| what | chunks | seconds | chunks/s |");
    L.push("| --- | --- | --- | --- |");
    L.push(`| lexical-only indexing (model off) | ${i.lexical_only.chunks} | ${f1(i.lexical_only.ms / 1000)} | ${f1(i.lexical_only.chunks_per_s)} |`);
    if (i.full) L.push(`| full indexing (chunk + embed + write) | ${i.full.chunks} | ${f1(i.full.ms / 1000)} | ${f1(i.full.chunks_per_s)} |`);
    if (i.embedding) {
      const e = i.embedding;
      L.push(`| bare model, embedPassages (batch ${e.batch_size}) | ${e.chunks} | ${f1(e.bare_ms / 1000)} | ${f1(e.bare_chunks_per_s)} |`);
      L.push(`| ingest path, same ${e.documents} documents | ${e.chunks} | ${f1(e.ingest_ms / 1000)} | ${f1(e.ingest_chunks_per_s)} |`);
    }
  }
  L.push("");
  L.push("## Targets (issue 5)");
  L.push("");
  L.push("| target | measured | met |");
  L.push("| --- | --- | --- |");
  for (const t of r.targets) L.push(`| ${t.target} | ${t.measured} | ${t.met === null ? "n/a" : t.met ? "yes" : "**no**"} |`);
  L.push("");
  L.push(`Total bench time: ${(r.total_ms / 1000).toFixed(0)} s.`);
  return L.join("\n") + "\n";
}

export function writeReport(r: BenchReport, outDir: string): { json: string; md: string } {
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = r.date.replace(/[:.]/g, "-") + (r.store && r.store !== "sqlite" ? `-${r.store}` : "");
  const json = path.join(outDir, `${stamp}.json`);
  const md = path.join(outDir, `${stamp}.md`);
  fs.writeFileSync(json, JSON.stringify(r, null, 2));
  fs.writeFileSync(md, renderMarkdown(r));
  return { json, md };
}

/** Stores side by side (the first is the baseline), with the scale-out targets of issue 11. */
export function renderComparison(reports: BenchReport[]): string {
  const [base, ...others] = reports;
  const L: string[] = ["", `## Stores compared (${reports.map((r) => r.store).join(" vs ")})`, ""];
  L.push(`| measure | ${reports.map((r) => r.store).join(" | ")} |`);
  L.push(`| --- | ${reports.map(() => "---").join(" | ")} |`);
  for (const q of base.quality) {
    L.push(`| nDCG@10, ${q.label} | ${reports.map((r) => f4(r.quality.find((x) => x.label === q.label)?.ndcg_at_10)).join(" | ")} |`);
  }
  const speed = (pick: (r: BenchReport) => number | null | undefined) => reports.map((r) => (r.speed ? f1(pick(r)) : "not run")).join(" | ");
  L.push(`| hybrid p50 ms (HTTP) | ${speed((r) => r.speed?.hybrid.p50)} |`);
  L.push(`| hybrid p95 ms (HTTP) | ${speed((r) => r.speed?.hybrid.p95)} |`);
  L.push(`| lexical p50 ms (HTTP) | ${speed((r) => r.speed?.lexical.p50)} |`);
  L.push(`| lexical p95 ms (HTTP) | ${speed((r) => r.speed?.lexical.p95)} |`);
  L.push(`| hybrid QPS (${base.speed?.qps_hybrid.clients ?? "-"} clients) | ${speed((r) => r.speed?.qps_hybrid.qps)} |`);
  L.push(`| lexical-only ingest chunks/s | ${reports.map((r) => (r.ingest ? f1(r.ingest.lexical_only.chunks_per_s) : "not run")).join(" | ")} |`);
  L.push("");
  L.push("| target | measured | met |");
  L.push("| --- | --- | --- |");
  const lex = (r: BenchReport) => r.quality.find((q) => q.label === "lexical only")?.ndcg_at_10;
  const hyb = (r: BenchReport) => r.quality.find((q) => q.label === "hybrid (deployment default)")?.ndcg_at_10;
  for (const r of others) {
    const a = lex(base);
    const b = lex(r);
    const d = a !== undefined && b !== undefined ? Math.abs(a - b) : null;
    L.push(`| ${r.store} lexical nDCG@10 within 0.01 of ${base.store} | ${f4(b)} vs ${f4(a)} (diff ${d === null ? "—" : d.toFixed(4)}) | ${d === null ? "n/a" : d <= 0.01 ? "yes" : "**no**"} |`);
    const h = hyb(base);
    const k = hyb(r);
    const dh = h !== undefined && k !== undefined ? Math.abs(h - k) : null;
    L.push(`| ${r.store} hybrid nDCG@10 within 0.005 of ${base.store} | ${f4(k)} vs ${f4(h)} (diff ${dh === null ? "—" : dh.toFixed(4)}) | ${dh === null ? "n/a" : dh <= 0.005 ? "yes" : "**no**"} |`);
    const p = base.speed?.hybrid.p95;
    const q = r.speed?.hybrid.p95;
    const ratio = p && q ? q / p : null;
    L.push(`| ${r.store} hybrid p95 within 2x of ${base.store} (HTTP) | ${f1(q)} vs ${f1(p)} ms (${ratio === null ? "—" : `${ratio.toFixed(2)}x`}) | ${ratio === null ? "n/a" : ratio <= 2 ? "yes" : "**no**"} |`);
  }
  return L.join("\n") + "\n";
}

/** Runs a bench script's main: exits with its code, or with 1 and the stack on stderr. */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
