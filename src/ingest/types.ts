// Shared shapes of the ingest pipeline: parse -> chunk -> embed -> index.
// Parsers produce structure (headings, pages) so the chunker can build heading paths and keep
// page numbers; nothing downstream needs to know which file format a block came from.

export type FileKind = "text" | "markdown" | "html" | "pdf" | "docx" | "csv" | "json" | "xlsx" | "pptx" | "epub";

export interface ParsedBlock {
  /** heading blocks start a section; the others are content under the current heading path */
  type: "heading" | "paragraph" | "list" | "table" | "code";
  /** plain text (Markdown-ish for lists/tables/code); never empty */
  text: string;
  /** heading level 1..6, only for type "heading" */
  level?: number;
  /** 1-based page number where the block starts (PDF, PPTX slides) */
  page?: number;
}

export interface ParsedDocument {
  kind: FileKind;
  /** best title: first H1 / <title> / PDF or DOCX metadata / file name without extension */
  title: string;
  blocks: ParsedBlock[];
  /** format-specific facts worth keeping on the document (page_count, sheet names, ...) */
  metadata: Record<string, unknown>;
}

export interface ChunkDraft {
  /** 0-based order within the document */
  position: number;
  text: string;
  /** headings above this chunk, outermost first (the document title is not repeated here) */
  headingPath: string[];
  tokenCount: number;
  /** e.g. { pages: [3, 4] } for PDFs */
  metadata: Record<string, unknown>;
}
