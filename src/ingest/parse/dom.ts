// linkedom's parseHTML, loaded with the first HTML page: importing linkedom costs about 0.2
// CPU-seconds, paid otherwise by every process start (the crawler's link reader) and every parse
// worker, most of which never see HTML. Loaded synchronously (createRequire gives its CommonJS
// build) because the HTML readers are synchronous.
import { createRequire } from "node:module";

type Linkedom = typeof import("linkedom");
let linkedom: Linkedom | null = null;

export function parseHTML(html: string): ReturnType<Linkedom["parseHTML"]> {
  linkedom ??= createRequire(import.meta.url)("linkedom") as Linkedom;
  return linkedom.parseHTML(html);
}
