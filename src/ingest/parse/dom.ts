// linkedom's parseHTML, loaded with the first HTML page: importing linkedom costs about 0.2
// CPU-seconds, paid otherwise by every process start (the crawler's link reader) and every parse
// worker, most of which never see HTML.
import { lazyRequire } from "../../lazy-require.js";

type Linkedom = typeof import("linkedom");
const linkedom = lazyRequire<Linkedom>("linkedom");

export function parseHTML(html: string): ReturnType<Linkedom["parseHTML"]> {
  return linkedom().parseHTML(html);
}
