// GET /industry-benchmarks and POST /industry-benchmarks/{name}/import: the public question sets
// of search/beir-catalog.ts (plus any other BEIR-format folder found locally), whether this server
// has their files, and loading one into a collection with a ready suite.
//
// Files are read from BEIR_DATA_DIR (default ../shared/datasets when that folder exists, else
// DATA_DIR/datasets), one folder per data set named as BEIR names it (scifact, nfcorpus, ...).
// This service never downloads: where the network allows, an operator fetches the BEIR zip and
// unzips it there (each entry says from where).
import fs from "node:fs";
import path from "node:path";
import { BEIR_CATALOG, findDataset, type BeirDatasetInfo, type PublishedScore } from "../beir/beir-catalog.js";
import type { Principal } from "../../services/auth/auth.js";
import { conflict, notFound } from "../../services/errors.js";
import { missingBeirFiles, type BeirImporter, type BeirImportStarted } from "../beir/beir-import.js";

/** BEIR_DATA_DIR, or ../shared/datasets when it exists (this project's layout), else DATA_DIR/datasets. */
export function beirDataDir(explicit: string | null | undefined, dataDir: string, cwd = process.cwd()): string {
  if (explicit?.trim()) return path.resolve(explicit.trim());
  const shared = path.resolve(cwd, "..", "shared", "datasets");
  return fs.existsSync(shared) ? shared : path.join(dataDir, "datasets");
}

export interface IndustryBenchmarkOut {
  name: string;
  title: string;
  description: string;
  domain: string;
  licence: string;
  size: { documents: number | null; queries: number | null };
  split: string;
  graded_relevance: boolean;
  homepage: string | null;
  source_url: string | null;
  published_ndcg_at_10: PublishedScore[];
  /** BM25 nDCG@10 of the BEIR paper, the usual reference (null when not published) */
  published_bm25_ndcg_at_10: number | null;
  available_locally: boolean;
  local_path: string;
  download: { automatic: false; detail: string };
  how_to_use: { api: string; cli: string; bench: string };
}

export interface ImportBody {
  collection_id?: string | null;
  collection_name?: string | null;
  split?: string;
  max_queries?: number;
  max_documents?: number | null;
  top_k?: number;
}

function entry(dir: string, d: BeirDatasetInfo | { name: string }): IndustryBenchmarkOut {
  const info = "title" in d ? d : null;
  const local = path.join(dir, d.name);
  const split = info?.split ?? "test";
  const available = missingBeirFiles(local, split).length === 0;
  return {
    name: d.name,
    title: info?.title ?? d.name,
    description: info?.description ?? "A BEIR-format data set found in the server's data directory.",
    domain: info?.domain ?? "unknown",
    licence: info?.licence ?? "unknown: see the data set's own documentation",
    size: { documents: info?.size.documents ?? null, queries: info?.size.queries ?? null },
    split,
    graded_relevance: info?.graded ?? false,
    homepage: info?.homepage ?? null,
    source_url: info?.download_url ?? null,
    published_ndcg_at_10: info?.published ?? [],
    published_bm25_ndcg_at_10: info?.published.find((s) => s.system.startsWith("BM25 (Elasticsearch"))?.ndcg_at_10 ?? null,
    available_locally: available,
    local_path: local,
    download: {
      automatic: false,
      detail: available
        ? "The files are on this server."
        : `Not on this server, and this server does not download data sets (no outside network here). ` +
          `Where the network allows, download ${info?.download_url ?? "the BEIR zip"} and unzip it into ${dir} (giving ${local}/corpus.jsonl, queries.jsonl, qrels/).`,
    },
    how_to_use: {
      api: `POST /industry-benchmarks/${d.name}/import {"split":"${split}","max_queries":500} (202: collection, data source and suite ids; documents index in the background), then POST /benchmarks/{suite_id}/run once the data source is ready.`,
      cli: `quarry import beir ${local} --tenant <tenant id or slug> --collection-name "${info?.title ?? d.name}" --split ${split}`,
      bench: `npm run bench -- --dataset ${local}`,
    },
  };
}

export function createIndustryBenchmarkService(deps: { dataDir: string; importer: BeirImporter }) {
  const running = new Set<AbortController>();
  const pending = new Set<Promise<unknown>>();

  /** catalogue entries, then other BEIR-format folders found in the data directory */
  function entries(): IndustryBenchmarkOut[] {
    const out = BEIR_CATALOG.map((d) => entry(deps.dataDir, d));
    let extra: string[] = [];
    try {
      extra = fs
        .readdirSync(deps.dataDir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !findDataset(e.name) && fs.existsSync(path.join(deps.dataDir, e.name, "corpus.jsonl")))
        .map((e) => e.name)
        .sort();
    } catch {
      /* no data directory: only the catalogue */
    }
    return [...out, ...extra.map((name) => entry(deps.dataDir, { name }))];
  }

  return {
    dataDir: deps.dataDir,
    /** the import mechanics, for the CLI and the bench (no 202/background bookkeeping) */
    importer: deps.importer,
    list: entries,

    /** Starts loading a data set into a collection with its suite; indexing continues in the background. */
    async import(p: Principal, name: string, body: ImportBody): Promise<BeirImportStarted> {
      const e = entries().find((x) => x.name === (findDataset(name)?.name ?? name));
      if (!e) throw notFound("Industry benchmark", name);
      const split = body.split ?? e.split;
      const missing = missingBeirFiles(e.local_path, split);
      if (missing.length) {
        throw conflict(
          missing.length === 3
            ? `${e.title} is not available on this server. ${e.download.detail}`
            : `${e.title} in ${e.local_path} has no '${split}' split (missing ${missing.join(", ")}). Choose another split.`,
        );
      }
      const ctl = new AbortController();
      const job = await deps.importer.start(p, {
        dir: e.local_path,
        dataset: e.name,
        title: e.title,
        split,
        collectionId: body.collection_id ?? null,
        collectionName: body.collection_name ?? null,
        maxQueries: body.max_queries ?? null,
        maxDocuments: body.max_documents ?? null,
        topK: body.top_k,
        signal: ctl.signal,
      });
      running.add(ctl);
      const settled = job.done.catch(() => undefined).finally(() => {
        running.delete(ctl);
        pending.delete(settled);
      });
      pending.add(settled);
      return job.started;
    },

    /** imports still indexing in the background */
    inProgress: () => pending.size,
    /** resolves when no background import is running (tests) */
    async idle(): Promise<void> {
      while (pending.size) await Promise.all([...pending]);
    },
    /** shutdown: stop background imports (their remaining documents stay queued for the next start) */
    async close(): Promise<void> {
      for (const c of running) c.abort();
      await this.idle();
    },
  };
}

export type IndustryBenchmarkService = ReturnType<typeof createIndustryBenchmarkService>;
