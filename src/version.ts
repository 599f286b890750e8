// The release version, read from package.json (the one place it is written), in a module of its
// own so the CLI can print it without loading the runtime. The path resolves from src/ under tsx
// and from dist/ after `npm run build` alike: both sit one level below the package root.
import fs from "node:fs";

export const VERSION: string = (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
