// A document's chunks as one indexing writes them: rows with their analysed lexical entries in one
// statement, then their vectors, in place of whatever an earlier version left.
import { transaction, type Client, type Pool } from "../db.js";
import type { Json, NewChunk } from "../../content-types.js";
import type { IndexWrites } from "../../content-store.js";
import { analyzeChunk, headingsField, type ChunkTerms } from "../../../search/lexical/analyze.js";
import { MAX_TERM_BYTES } from "./lexical.js";
import { DEFAULT_LANGUAGE, SOURCE_LANGUAGE_SQL, documentAnalyzer, openingOf } from "../../../search/lexical/languages.js";
import { insertVectors } from "./vector-embeddings.js";

/** the analysed chunk as stored: terms too long for a postings index entry are left out (the length keeps them) */
function lexicalEntry(a: ChunkTerms): { terms: string[]; tfs: number[]; length: number } {
  const keep = a.terms.map((t) => Buffer.byteLength(t) <= MAX_TERM_BYTES);
  return { terms: a.terms.filter((_, i) => keep[i]), tfs: Array.from(a.tfs).filter((_, i) => keep[i]), length: a.length };
}

/**
 * Inserts the chunks of a document with their analysed lexical entries in one statement (parallel
 * arrays; terms contain no spaces, so each chunk's terms travel as one space-joined string), and
 * returns the new ids in position order.
 */
async function insertChunks(c: Client, tenantId: string, documentId: string, sourceId: string, title: string, chunks: NewChunk[], embeddedIn: string | null) {
  const lang = await c.query<{ language: string }>(SOURCE_LANGUAGE_SQL("$1", "$2"), [tenantId, sourceId]);
  const analyzer = documentAnalyzer(lang.rows[0]?.language ?? DEFAULT_LANGUAGE, () => openingOf(title, chunks));
  const lex = chunks.map((ch) => lexicalEntry(analyzeChunk({ title, headings: headingsField(ch.heading_path), body: ch.text }, analyzer)));
  const r = await c.query<{ id: string; position: number }>(
    `INSERT INTO chunks (tenant_id, document_id, data_source_id, position, heading_path, text, token_count, metadata, embedded_in,
                         lex_length, lex_terms, lex_tfs)
     SELECT $1, $2, $3, x.position, x.heading_path, x.text, x.token_count, x.metadata, $4,
            x.lex_length, string_to_array(x.terms, ' '), string_to_array(x.tfs, ' ')::int[]
     FROM unnest($5::int[], $6::text[], $7::text[], $8::int[], $9::text[], $10::int[], $11::text[], $12::text[])
       AS x(position, heading_path, text, token_count, metadata, lex_length, terms, tfs)
     RETURNING id::text, position`,
    [
      tenantId,
      documentId,
      sourceId,
      embeddedIn,
      chunks.map((ch) => ch.position),
      chunks.map((ch) => JSON.stringify(ch.heading_path)),
      chunks.map((ch) => ch.text),
      chunks.map((ch) => ch.token_count),
      chunks.map((ch) => JSON.stringify(ch.metadata)),
      lex.map((l) => l.length),
      lex.map((l) => l.terms.join(" ")),
      lex.map((l) => l.tfs.join(" ")),
    ],
  );
  const byPosition = new Map(r.rows.map((x) => [x.position, x.id]));
  return chunks.map((ch) => byPosition.get(ch.position)!);
}

/** replaceDocumentIndex inside its transaction: the document row is locked first. */
async function replaceIndex(
  c: Client,
  tenantId: string,
  documentId: string,
  doc: { title: string; metadata: Json },
  chunks: NewChunk[],
  vectors: { indexName: string; values: Float32Array[] } | null,
): Promise<void> {
  const row = await c.query<{ data_source_id: string }>("SELECT data_source_id FROM documents WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [
    tenantId,
    documentId,
  ]);
  if (row.rowCount === 0) return; // deleted while it was being processed: nothing to index
  const sourceId = row.rows[0]!.data_source_id;
  // vectors and lexical statistics of the old chunks go by cascade and trigger
  await c.query("DELETE FROM chunks WHERE tenant_id = $1 AND document_id = $2", [tenantId, documentId]);
  if (chunks.length) {
    const ids = await insertChunks(c, tenantId, documentId, sourceId, doc.title, chunks, vectors?.indexName ?? null);
    if (vectors) await insertVectors(c, vectors.indexName, tenantId, sourceId, ids, vectors.values);
  }
  await c.query(
    `UPDATE documents SET title = $3, metadata = $4, status = 'indexed', error = NULL, chunk_count = $5, updated_at = $6
     WHERE tenant_id = $1 AND id = $2`,
    [tenantId, documentId, doc.title, JSON.stringify(doc.metadata as Json), chunks.length, new Date().toISOString()],
  );
}

export function indexWriteMethods(pool: Pool): IndexWrites {
  return {
    async replaceDocumentIndex(tenantId, documentId, doc, chunks, vectors) {
      await transaction(pool, (c) => replaceIndex(c, tenantId, documentId, doc, chunks, vectors));
    },
  };
}
