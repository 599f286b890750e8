// The shipped model: its id (which, with its dimension, names the vector index its vectors live
// in) and where it and its records live, model/ at the package root (beside src/ and dist/).
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MODEL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "model");
/**
 * The id names the vector index the model's vectors live in (with the dimension), so every new
 * model file needs a new id, not only one of another shape or tokenizer: a retrained file of the
 * same shape puts passages elsewhere in the space, and a collection embedded by the old file and
 * searched with the new file's query vectors scored 0.274 vector-only on the Node.js plain
 * questions where either file alone scores 0.36-0.65 (docs/model.md). With a new id the index is
 * new, and the backfill embeds every chunk again for it.
 */
export const MODEL_ID = "quarry-static-v1";
/** The payload checksum of the file MODEL_ID names (test/model/shipped-file.test.ts holds model/ to it). */
export const MODEL_PAYLOAD_SHA256 = "07c511eb11161fe7da2e84a1bbc5251baddd9ad32bd17bde32c08322fd5a36aa";
export const MODEL_FILE = `${MODEL_ID}.qsm`;
