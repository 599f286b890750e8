// Plain-text renderings of tool results for a language model: compact, ids where the next call
// needs them, and a hint of what to call next.
import type { CollectionOut } from "../../services/collections/collections.js";
import type { DocumentOut } from "../../services/documents/documents.js";
import type { CrawlOut } from "../../services/crawl/crawls.js";

interface Hit {
  document_id: string;
  title: string;
  source: string;
  snippet: string;
  score: number;
  position: number | null;
  heading_path: string[];
}

interface Chunk {
  position: number;
  heading_path: string[];
  text: string;
}

export function collections(list: CollectionOut[]): string {
  if (list.length === 0) return "This workspace has no collections yet.";
  const lines = list.map((c) => {
    const about = c.description ? ` — ${c.description}` : "";
    return `- ${c.id}: ${c.name}${about} (${c.document_count} documents, ${c.indexed_count} indexed)`;
  });
  return `${list.length} collection(s); pass the id as collection_id:\n${lines.join("\n")}`;
}

export function searchHits(res: { query: string; total: number; results: Hit[]; facets?: Record<string, Record<string, number>> }): string {
  const facets = res.facets ? `\n${facetLines(res.facets)}` : "";
  if (res.results.length === 0) return `No results for "${res.query}".${facets}`;
  const lines = res.results.map((h, i) => {
    const where = [h.heading_path.join(" > "), h.position === null ? "" : `position ${h.position}`].filter(Boolean).join(", ");
    return `${i + 1}. ${h.title} — ${h.source} (document_id ${h.document_id}${where ? `, ${where}` : ""}, score ${h.score})\n   ${h.snippet}`;
  });
  return `${res.results.length} of ${res.total} results for "${res.query}":\n${lines.join("\n")}${facets}`;
}

/** "Facet metadata.product: cli (3), api (2)", one line a field */
function facetLines(facets: Record<string, Record<string, number>>): string {
  return Object.entries(facets)
    .map(([field, counts]) => `Facet ${field}: ${Object.entries(counts).map(([v, n]) => `${v} (${n})`).join(", ") || "no values"}`)
    .join("\n");
}

export function documentText(doc: DocumentOut, chunks: Chunk[], total: number): string {
  const head = `${doc.title} — ${doc.source} (document_id ${doc.id}, status ${doc.status}, ${total} chunks)`;
  if (chunks.length === 0) return `${head}\nNo indexed text${doc.error ? `: ${doc.error}` : " yet"}.`;
  const body = chunks.map((c) => {
    const heading = c.heading_path.length ? ` ${c.heading_path.join(" > ")}` : "";
    return `[position ${c.position}]${heading}\n${c.text}`;
  });
  const last = chunks[chunks.length - 1].position;
  const more = last < total - 1 ? `\n\n(${total - 1 - last} more chunks after position ${last}; read them with get_chunk.)` : "";
  return `${head}\n\n${body.join("\n\n")}${more}`;
}

export function crawlStarted(job: CrawlOut, collectionId: string | undefined): string {
  const into = collectionId ? ` into collection ${collectionId}` : "";
  return `Crawl ${job.id} of ${job.url} is ${job.status}${into} (data source ${job.data_source_id}, up to ${job.page_limit} pages, depth ${job.max_depth}). Pages become searchable as they are indexed; list_collections shows the growing document_count.`;
}

export function uploaded(doc: DocumentOut): string {
  if (doc.status === "failed") return `The document "${doc.title}" was refused: ${doc.error ?? "unknown reason"}`;
  return `Document ${doc.id} "${doc.title}" is ${doc.status} in data source ${doc.data_source_id}; it becomes searchable once indexed (usually within seconds).`;
}

interface Context {
  citation: number;
  document_id: string;
  position: number;
}

/**
 * The retrieve text block plus a footer mapping each citation to its document id and chunk
 * positions: many MCP clients hand the model only the text content, and get_chunk needs both.
 */
export function retrieveText(res: { query: string; text: string | null; contexts: Context[] }): string {
  const block = res.text ?? "";
  if (!block.trim()) return `No passages matched "${res.query}" in this collection.`;
  const byCitation = new Map<number, { id: string; positions: number[] }>();
  for (const c of res.contexts) {
    const entry = byCitation.get(c.citation) ?? { id: c.document_id, positions: [] };
    entry.positions.push(c.position);
    byCitation.set(c.citation, entry);
  }
  const lines = [...byCitation.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, e]) => `[${n}] document_id ${e.id}, positions ${[...new Set(e.positions)].sort((a, b) => a - b).join(", ")}`);
  return `${block.trimEnd()}\n\nSources (for get_chunk / get_document):\n${lines.join("\n")}`;
}

export function suggestions(prefix: string, list: string[]): string {
  if (list.length === 0) return `No suggestions for "${prefix}" in this collection. Search with the text as it is.`;
  return [`Suggestions for "${prefix}", best first:`, ...list.map((x, i) => `${i + 1}. ${x}`)].join("\n");
}
