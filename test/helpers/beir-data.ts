// Where tests find BEIR data sets: BEIR_DATA_DIR, else the deployment default (services/
// industry-benchmarks.ts). A test that needs a set which is not there is skipped, and says why.
import path from "node:path";
import { beirDataDir } from "../../src/evaluation/benchmarks/industry-benchmarks.js";
import { missingBeirFiles } from "../../src/evaluation/beir/beir-import.js";

export function beirSet(name: string, split = "test"): { dir: string; available: boolean } {
  const dir = path.join(beirDataDir(process.env.BEIR_DATA_DIR, path.resolve("data")), name);
  const missing = missingBeirFiles(dir, split);
  if (missing.length) {
    console.warn(`skipping the ${name} tests: ${dir} lacks ${missing.join(", ")}. Set BEIR_DATA_DIR to a folder holding ${name}/ (download: https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/${name}.zip).`);
  }
  return { dir, available: missing.length === 0 };
}
