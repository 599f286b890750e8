#!/usr/bin/env node
// The `quarry` command. In a source checkout (src/ present) it runs the TypeScript sources through
// tsx's loader registered in this very process, so there is no build step and no stale build; in a
// built image or package without src/ it runs the compiled dist/. Either way there is one Node
// process, so signals reach Quarry itself. Production: `node dist/cli.js serve` (docs/self-hosting.md).
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../", import.meta.url);
const source = new URL("src/cli.ts", root);
const compiled = new URL("dist/cli.js", root);

if (fs.existsSync(fileURLToPath(source))) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else if (fs.existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  process.stderr.write("quarry: neither src/cli.ts nor dist/cli.js is here. Reinstall the package, or run `npm run build` in a source checkout.\n");
  process.exit(1);
}
