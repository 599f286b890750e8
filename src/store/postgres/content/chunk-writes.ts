// Documents' chunks as indexing writes them: rows with their analysed lexical entries in one
// statement, then their vectors, in place of whatever an earlier version left. A batch of
// documents is written with the same statements as one document (one chunk INSERT, one DELETE,
// one UPDATE), so the statement triggers that keep the lexical statistics and postings
// (migrations 051, 110) fire once per batch instead of once per document: lexical-only ingest of
// SciFact went from 7 round trips and 7 trigger statements per document to that per 64
// documents (docs/benchmarks.md).
import { transaction, type Client, type Pool } from "../db.js";
import type { DocumentIndex, IndexWrites } from "../../content-store.js";
import { analyzeChunk, headingsField, type ChunkTerms } from "../../../search/lexical/analyze.js";
import { MAX_TERM_BYTES } from "./lexical.js";
import { DEFAULT_LANGUAGE, SOURCE_LANGUAGE_SQL, documentAnalyzer, openingOf } from "../../../search/lexical/languages.js";
import { insertVectors } from "./vector-embeddings.js";
import type { VectorColumns } from "./vector-tables.js";

/** the analysed chunk as stored: terms too long for a postings index entry are left out (the length keeps them) */
function lexicalEntry(a: ChunkTerms): { terms: string[]; tfs: number[]; length: number } {
  const keep = a.terms.map((t) => Buffer.byteLength(t) <= MAX_TERM_BYTES);
  return { terms: a.terms.filter((_, i) => keep[i]), tfs: Array.from(a.tfs).filter((_, i) => keep[i]), length: a.length };
}

/** A locked document of the batch with the source its chunks go to. */
type Target = DocumentIndex & { sourceId: string };

/** Each data source's collection language (one statement per distinct source, usually one). */
async function languagesOf(c: Client, tenantId: string, sourceIds: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const id of new Set(sourceIds)) {
    const r = await c.query<{ language: string }>(SOURCE_LANGUAGE_SQL("$1", "$2"), [tenantId, id]);
    out.set(id, r.rows[0]?.language ?? DEFAULT_LANGUAGE);
  }
  return out;
}

/**
 * Inserts the chunks of every target with their analysed lexical entries in one statement
 * (parallel arrays; terms contain no spaces, so each chunk's terms travel as one space-joined
 * string), and returns each target's new ids in position order.
 */
async function insertChunks(c: Client, tenantId: string, targets: Target[]): Promise<string[][]> {
  const languages = await languagesOf(c, tenantId, targets.map((t) => t.sourceId));
  const rows = targets.flatMap((t) => {
    const analyzer = documentAnalyzer(languages.get(t.sourceId)!, () => openingOf(t.doc.title, t.chunks));
    return t.chunks.map((ch) => ({ t, ch, lex: lexicalEntry(analyzeChunk({ title: t.doc.title, headings: headingsField(ch.heading_path), body: ch.text }, analyzer)) }));
  });
  const r = await c.query<{ id: string; document_id: string; position: number }>(
    `INSERT INTO chunks (tenant_id, document_id, data_source_id, position, heading_path, text, token_count, metadata, embedded_in,
                         lex_length, lex_terms, lex_tfs)
     SELECT $1, x.document_id, x.data_source_id, x.position, x.heading_path, x.text, x.token_count, x.metadata, x.embedded_in,
            x.lex_length, string_to_array(x.terms, ' '), string_to_array(x.tfs, ' ')::int[]
     FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::text[], $8::int[], $9::text[], $10::int[], $11::text[], $12::text[])
       AS x(document_id, data_source_id, embedded_in, position, heading_path, text, token_count, metadata, lex_length, terms, tfs)
     RETURNING id::text, document_id, position`,
    [
      tenantId,
      rows.map((x) => x.t.documentId),
      rows.map((x) => x.t.sourceId),
      rows.map((x) => x.t.vectors?.indexName ?? null),
      rows.map((x) => x.ch.position),
      rows.map((x) => JSON.stringify(x.ch.heading_path)),
      rows.map((x) => x.ch.text),
      rows.map((x) => x.ch.token_count),
      rows.map((x) => JSON.stringify(x.ch.metadata)),
      rows.map((x) => x.lex.length),
      rows.map((x) => x.lex.terms.join(" ")),
      rows.map((x) => x.lex.tfs.join(" ")),
    ],
  );
  const ids = new Map(r.rows.map((x) => [`${x.document_id}\u0000${x.position}`, x.id]));
  return targets.map((t) => t.chunks.map((ch) => ids.get(`${t.documentId}\u0000${ch.position}`)!));
}

/** Vectors of the targets that brought them, one statement per (index, source). */
async function insertAllVectors(c: Client, columns: VectorColumns, tenantId: string, targets: Target[], ids: string[][]): Promise<void> {
  const groups = new Map<string, { indexName: string; sourceId: string; ids: string[]; values: Float32Array[] }>();
  targets.forEach((t, i) => {
    if (!t.vectors || t.chunks.length === 0) return;
    const key = `${t.vectors.indexName}\u0000${t.sourceId}`;
    const g = groups.get(key) ?? { indexName: t.vectors.indexName, sourceId: t.sourceId, ids: [], values: [] };
    g.ids.push(...ids[i]!);
    g.values.push(...t.vectors.values);
    groups.set(key, g);
  });
  for (const g of groups.values()) await insertVectors(c, columns, g.indexName, tenantId, g.sourceId, g.ids, g.values);
}

/** replaceDocumentsIndex inside its transaction: the document rows are locked first, in id order. */
async function replaceIndexes(c: Client, columns: VectorColumns, tenantId: string, items: DocumentIndex[]): Promise<void> {
  // the last item of a document named twice wins, as sequential replacements would leave it
  const byId = new Map(items.map((it) => [it.documentId, it]));
  const locked = await c.query<{ id: string; data_source_id: string }>(
    "SELECT id, data_source_id FROM documents WHERE tenant_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR UPDATE",
    [tenantId, [...byId.keys()]],
  );
  // documents deleted while they were being processed: nothing to index. The rest in the batch's
  // order, so chunk ids (the tie order of equal scores) grow as one write per document gives them
  const sourceOf = new Map(locked.rows.map((r) => [r.id, r.data_source_id]));
  const targets: Target[] = [...byId.values()].filter((it) => sourceOf.has(it.documentId)).map((it) => ({ ...it, sourceId: sourceOf.get(it.documentId)! }));
  if (targets.length === 0) return;
  const docIds = targets.map((t) => t.documentId);
  // vectors and lexical statistics of the old chunks go by cascade and trigger
  await c.query("DELETE FROM chunks WHERE tenant_id = $1 AND document_id = ANY($2::text[])", [tenantId, docIds]);
  const withChunks = targets.filter((t) => t.chunks.length > 0);
  if (withChunks.length) await insertAllVectors(c, columns, tenantId, withChunks, await insertChunks(c, tenantId, withChunks));
  await c.query(
    `UPDATE documents d SET title = x.title, metadata = x.metadata, status = 'indexed', error = NULL, chunk_count = x.n, updated_at = $6
     FROM unnest($2::text[], $3::text[], $4::text[], $5::int[]) AS x(id, title, metadata, n)
     WHERE d.tenant_id = $1 AND d.id = x.id`,
    [tenantId, docIds, targets.map((t) => t.doc.title), targets.map((t) => JSON.stringify(t.doc.metadata)), targets.map((t) => t.chunks.length), new Date().toISOString()],
  );
}

/** `columns`: the vector tables' element types, shared with the vector methods. */
export function indexWriteMethods(pool: Pool, columns: VectorColumns): IndexWrites {
  return {
    async replaceDocumentIndex(tenantId, documentId, doc, chunks, vectors) {
      await transaction(pool, (c) => replaceIndexes(c, columns, tenantId, [{ documentId, doc, chunks, vectors }]));
    },
    async replaceDocumentsIndex(tenantId, items) {
      if (items.length) await transaction(pool, (c) => replaceIndexes(c, columns, tenantId, items));
    },
  };
}
