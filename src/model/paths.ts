// The shipped model: its id (which, with its dimension, names the vector index its vectors live
// in) and where it and its records live, model/ at the package root (beside src/ and dist/).
import path from "node:path";
import { fileURLToPath } from "node:url";

export const MODEL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "model");
/** A new id (and so a new vector index) is needed only when vectors of the old and new model differ in kind (shape or tokenizer). */
export const MODEL_ID = "quarry-static-v1";
export const MODEL_FILE = `${MODEL_ID}.qsm`;
