// Rewrites the generated blocks of the reference docs from the code they describe:
//   npm run docs:cli | docs:config | docs:api      (one)
//   npm run docs                                   (all three)
// The API reference is written from the document the real app builds (a throwaway runtime, no
// port), the same one GET /openapi.json serves.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "../../clients/typescript/scripts/generate.js";
import { apiReferenceMarkdown } from "./api-reference.js";
import { cliReferenceMarkdown } from "./cli-reference.js";
import { configReferenceMarkdown } from "./config-reference.js";
import { REFERENCES, withGeneratedBlock, type ReferenceName } from "./references.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const RENDER: Record<ReferenceName, () => Promise<string>> = {
  cli: async () => cliReferenceMarkdown(),
  config: async () => configReferenceMarkdown(),
  api: async () => apiReferenceMarkdown(await buildOpenApiDocument()),
};

async function main(names: string[]): Promise<void> {
  const chosen = names.length > 0 ? names : Object.keys(REFERENCES);
  for (const name of chosen) {
    if (!(name in REFERENCES)) throw new Error(`unknown reference "${name}": choose from ${Object.keys(REFERENCES).join(", ")}`);
    const ref = REFERENCES[name as ReferenceName];
    const file = path.join(ROOT, ref.file);
    fs.writeFileSync(file, withGeneratedBlock(fs.readFileSync(file, "utf8"), ref, await RENDER[name as ReferenceName]()));
    console.log(`${ref.file}: regenerated`);
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
