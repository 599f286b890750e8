// The one mapping from a stored chunk (with its document's title and source) to what /search and
// /retrieve answer with, so a hit and a retrieve context name a chunk the same way (chunk id,
// document, position, heading path) and a change to that shape is made once.
import type { ChunkHit } from "../../store/content-types.js";
import type { ChunkRecord } from "../../search/retrieve-assembly.js";
import type { Analyzer } from "../../search/lexical/analyze.js";
import { makeSnippet } from "../../search/snippet.js";
import { chunkId } from "../documents/documents.js";

/** A stored chunk as /retrieve assembles it (matches and neighbours alike). */
export function chunkRecord(c: ChunkHit): ChunkRecord {
  return {
    id: chunkId(c.id),
    documentId: c.document_id,
    position: c.position,
    text: c.text,
    headingPath: c.heading_path,
    title: c.title,
    source: c.source,
  };
}

/**
 * A stored chunk as a /search hit: the record plus its snippet, highlights (matched as `analyzer`,
 * the one its text was indexed with, cuts words; absent: English) and merged metadata.
 */
export function searchHit(c: ChunkHit, score: number, terms: string[], analyzer?: Analyzer) {
  const r = chunkRecord(c);
  const { snippet, highlights } = makeSnippet(r.text, terms, analyzer ? { analyzer } : {});
  return {
    document_id: r.documentId,
    chunk_id: r.id,
    title: r.title,
    snippet,
    score,
    source: r.source,
    heading_path: c.heading_path,
    position: r.position,
    metadata: { ...c.document_metadata, ...c.metadata },
    highlights,
  };
}
