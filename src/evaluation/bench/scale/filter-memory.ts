// The memory the SQLite store's in-memory filter columns take (store/sqlite/content/filter-table.ts),
// and what loading a tenant and evaluating a filter cost: a tenant of N chunks in documents of
// 1-4 chunks (2.5 on average; the scale bench's corpus has 2.3), each with the filter bench's
// metadata (filters.ts), loaded with the three bench facet fields, heap measured after GC.
//
//   node --expose-gc --import tsx src/evaluation/bench/scale/filter-memory.ts --chunks 1000000
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDatabase } from "../../../store/sqlite/db.js";
import { FilterTables } from "../../../store/sqlite/content/filter-table.js";
import { parseFacets } from "../../../search/filter/facets.js";
import { parseFilter } from "../../../search/filter/parse.js";
import { BENCH_FACETS, BENCH_FILTERS, dealMetadata } from "./filters.js";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "200000" } } });
const chunks = Number(values.chunks);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-filter-memory-"));
try {
  const db = openDatabase(path.join(dir, "q.db"));
  const now = new Date().toISOString();
  db.prepare("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES ('t', 't', 't', 'free', 1, ?)").run(now);
  db.prepare(
    "INSERT INTO data_sources (id, tenant_id, name, source_type, configuration, created_at) VALUES ('s', 't', 's', 'upload', '{}', ?)",
  ).run(now);
  const sizes: number[] = [];
  for (let n = 0, i = 0; n < chunks; i++) {
    const size = Math.min(1 + ((i * 7919) % 4), chunks - n);
    sizes.push(size);
    n += size;
  }
  const metadata = dealMetadata(sizes);
  const insDoc = db.prepare(
    `INSERT INTO documents (id, tenant_id, data_source_id, title, source_type, source, status, kind, metadata, chunk_count, created_at, updated_at)
     VALUES (?, 't', 's', ?, 'upload', ?, 'indexed', 'text', ?, ?, ?, ?)`,
  );
  const insChunk = db.prepare("INSERT INTO chunks (tenant_id, document_id, data_source_id, position, text, token_count) VALUES ('t', ?, 's', ?, '', 0)");
  const write = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      insDoc.run(id, `doc ${i}`, `doc-${i}.txt`, JSON.stringify(metadata[i]), sizes[i], now, now);
      for (let p = 0; p < sizes[i]!; p++) insChunk.run(id, p);
    }
  });
  for (let i = 0; i < sizes.length; i += 20_000) write(i, Math.min(sizes.length, i + 20_000));
  const tables = new FilterTables(db);
  const before = heap();
  let t0 = performance.now();
  const table = tables.table("t", parseFacets(BENCH_FACETS).map((f) => f.field));
  const loadMs = performance.now() - t0;
  const bytes = heap() - before;
  const evalMs = BENCH_FILTERS.map((f) => {
    t0 = performance.now();
    table.passing(parseFilter(f.json), `${f.name}-${Math.random()}`);
    return performance.now() - t0;
  });
  const out = {
    chunks,
    documents: sizes.length,
    heap_bytes: bytes,
    bytes_per_chunk: bytes / chunks,
    estimate_bytes: tables.memoryBytes(),
    load_ms: Math.round(loadMs),
    evaluate_ms: Object.fromEntries(BENCH_FILTERS.map((f, i) => [f.name, Number(evalMs[i]!.toFixed(2))])),
  };
  process.stdout.write(JSON.stringify(out, null, 2) + "\n");
  db.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
