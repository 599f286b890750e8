// Lexical search at scale, in process: the embedded store's per-tenant BM25 index (MaxScore)
// against one FTS5 table per tenant (the alternative of issue 12), on the same chunks and queries.
//
//   node --expose-gc --import tsx src/evaluation/labs/lexical-bench.ts [--chunks 200000] [--queries 200] [--fts5]
//
// Corpus: Debian man pages and package documentation found on this machine (TEXT_DIRS, default
// /usr/share/man:/usr/share/doc), troff stripped, cut into 120-word chunks; 20 chunks per document. Queries: half keywords (2-3 words
// of a random chunk), half question phrasings ("how do I ..." around 3-5 words of a chunk).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import Database from "better-sqlite3";
import { openSqliteStore } from "../../store/sqlite/index.js";
import { parseQuery } from "../../search/lexical/parse-query.js";
import { analyzeQuery } from "../../search/lexical/analyze-query.js";
import { DEFAULT_ANALYZER } from "../../search/lexical/analyze.js";
import type { NewChunk } from "../../store/content-types.js";

const args = process.argv.slice(2);
const arg = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const CHUNKS = arg("chunks", 200_000);
const QUERIES = arg("queries", 200);
const WITH_FTS5 = args.includes("--fts5");
const TEXT_DIRS = (process.env.TEXT_DIRS ?? "/usr/share/man:/usr/share/doc").split(":");
const WORDS_PER_CHUNK = 120;

function* manPages(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* manPages(p);
    else if (entry.name.endsWith(".gz") || entry.name === "copyright" || entry.name.endsWith(".txt")) yield p;
  }
}

function stripTroff(src: string): string {
  return src
    .split("\n")
    .filter((l) => !l.startsWith(".") && !l.startsWith("'"))
    .join(" ")
    .replace(/\\f[BIRP]|\\f\(..|\\[-e&|^]|\\\(..|\\s[-+]?\d/g, " ");
}

function corpus(n: number): { title: string; chunks: string[] }[] {
  const docs: { title: string; chunks: string[] }[] = [];
  let total = 0;
  for (const file of TEXT_DIRS.flatMap((d) => [...manPages(d)])) {
    let text: string;
    try {
      const raw = fs.readFileSync(file);
      text = stripTroff((file.endsWith(".gz") ? zlib.gunzipSync(raw) : raw).toString("utf8"));
    } catch {
      continue;
    }
    const words = text.split(/\s+/).filter(Boolean);
    const chunks: string[] = [];
    for (let i = 0; i < words.length && total < n; i += WORDS_PER_CHUNK, total++) chunks.push(words.slice(i, i + WORDS_PER_CHUNK).join(" "));
    for (let i = 0; i < chunks.length; i += 20) docs.push({ title: path.basename(file, ".gz"), chunks: chunks.slice(i, i + 20) });
    if (total >= n) break;
  }
  if (total < n) throw new Error(`only ${total} chunks of text under ${TEXT_DIRS.join(", ")}`);
  return docs;
}

function queries(docs: { chunks: string[] }[], n: number): string[] {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const out: string[] = [];
  while (out.length < n) {
    const doc = docs[Math.floor(rand() * docs.length)]!;
    const words = doc.chunks[Math.floor(rand() * doc.chunks.length)]!.split(" ").filter((w) => /^[a-z]{3,}$/i.test(w));
    if (words.length < 8) continue;
    const at = Math.floor(rand() * (words.length - 6));
    out.push(out.length % 2 ? words.slice(at, at + 2 + Math.floor(rand() * 2)).join(" ") : `how do I ${words.slice(at, at + 3 + Math.floor(rand() * 3)).join(" ")}?`);
  }
  return out;
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(2)} ms, p95 ${pct(xs, 95).toFixed(2)} ms, p99 ${pct(xs, 99).toFixed(2)} ms`;
const now = () => Number(process.hrtime.bigint()) / 1e6;
// CPU time of this process (ms): on a shared, loaded machine wall time mostly measures the queue
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const W = { title: 2, headings: 1.5, body: 1 };

async function main(): Promise<void> {
  const docs = corpus(CHUNKS);
  const qs = queries(docs, QUERIES);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-lexbench-"));
  try {
    const store = openSqliteStore(dir);
    const at = new Date().toISOString();
    store.db.prepare("INSERT INTO tenants (id, name, slug, created_at) VALUES ('t1', 'bench', 'bench', ?)").run(at);
    store.db.prepare("INSERT INTO data_sources (id, tenant_id, name, source_type, created_at) VALUES ('s1', 't1', 'man', 'upload', ?)").run(at);
    const insDoc = store.db.prepare(
      `INSERT INTO documents (id, tenant_id, data_source_id, title, source_type, source, status, created_at, updated_at)
       VALUES (?, 't1', 's1', ?, 'upload', ?, 'queued', ?, ?)`,
    );
    let t0 = now();
    for (const [i, d] of docs.entries()) {
      insDoc.run(`d${i}`, d.title, `d${i}`, at, at);
      const chunks: NewChunk[] = d.chunks.map((text, position) => ({ position, text, heading_path: [], token_count: 120, metadata: {} }));
      await store.content.replaceDocumentIndex("t1", `d${i}`, { title: d.title, metadata: {} }, chunks, null);
    }
    const build = now() - t0;
    console.log(`corpus: ${CHUNKS} chunks from man pages in ${docs.length} documents; indexed (SQLite rows + terms) in ${(build / 1000).toFixed(1)} s = ${Math.round(CHUNKS / (build / 1000))} chunks/s`);
    // with node --expose-gc: live heap + typed arrays before and after the tenant's index loads
    const gc = (globalThis as { gc?: () => void }).gc;
    const live = () => {
      gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const liveBefore = live();
    t0 = now();
    await store.content.lexicalSearch("t1", ["s1"], analyzeQuery(parseQuery("warmup"), DEFAULT_ANALYZER), 1, W);
    const loadMs = now() - t0;
    const grown = live() - liveBefore;
    console.log(
      `first query (loads the tenant index): ${loadMs.toFixed(0)} ms; index memory ${gc ? `${(grown / 2 ** 20).toFixed(0)} MiB = ${Math.round(grown / CHUNKS)} bytes/chunk` : "(run with node --expose-gc to measure)"}; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
    );
    for (const depth of [100, 10]) {
      const times: number[] = [];
      const cpus: number[] = [];
      for (const q of qs) {
        const s = now();
        const c = cpu();
        await store.content.lexicalSearch("t1", ["s1"], analyzeQuery(parseQuery(q), DEFAULT_ANALYZER), depth, W);
        cpus.push(cpu() - c);
        times.push(now() - s);
      }
      console.log(`per-tenant BM25 index (MaxScore), top ${depth}: wall ${fmt(times)}; CPU ${fmt(cpus)}`);
    }
    if (WITH_FTS5) {
      const db = new Database(path.join(dir, "fts.db"));
      db.exec("CREATE VIRTUAL TABLE f USING fts5(title, headings, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')");
      const ins = db.prepare("INSERT INTO f (rowid, title, headings, body) VALUES (?, ?, '', ?)");
      let id = 0;
      db.transaction(() => docs.forEach((d) => d.chunks.forEach((c) => ins.run(++id, d.title, c))))();
      const stmt = db.prepare("SELECT rowid, -bm25(f, 2, 1.5, 1) AS score FROM f WHERE f MATCH ? ORDER BY score DESC LIMIT 100");
      const times: number[] = [];
      const cpus: number[] = [];
      for (const q of qs) {
        const p = parseQuery(q);
        const match = [...p.terms, ...p.phrases.map((x) => x.join(" "))].map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
        const s = now();
        const c = cpu();
        stmt.all(match);
        cpus.push(cpu() - c);
        times.push(now() - s);
      }
      console.log(`FTS5 table of this tenant alone, top 100: wall ${fmt(times)}; CPU ${fmt(cpus)}`);
      db.close();
    }
    store.db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
