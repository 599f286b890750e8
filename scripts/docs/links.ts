// Link check of the documentation: every relative link must name a file or folder of the
// repository, and every #anchor a heading (or <a id>) of the Markdown file it points into.
// test/docs/links.test.ts runs it over README.md and docs/.
import path from "node:path";
import { anchorsOf, linksOf } from "./markdown.js";

/** The repository as the check sees it; paths are relative to its root, with forward slashes. */
export interface DocTree {
  exists(file: string): boolean;
  read(file: string): string;
}

export interface LinkProblem {
  /** the Markdown file the link is in */
  file: string;
  line: number;
  href: string;
  /** the file the link resolves to (the file itself for a bare #anchor) */
  target: string;
  problem: string;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Problems of every link in `files` (external links are not fetched). */
export function checkLinks(files: string[], tree: DocTree): LinkProblem[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let a = anchors.get(file);
    if (!a) anchors.set(file, (a = anchorsOf(tree.read(file))));
    return a;
  };
  const problems: LinkProblem[] = [];
  for (const file of files) {
    for (const { href, line } of linksOf(tree.read(file))) {
      if (EXTERNAL.test(href) || href.startsWith("//")) continue;
      const problem = (target: string, what: string) => problems.push({ file, line, href, target, problem: what });
      const hash = href.indexOf("#");
      const pathPart = decodeURIComponent(hash < 0 ? href : href.slice(0, hash));
      const anchor = hash < 0 ? null : decodeURIComponent(href.slice(hash + 1));
      const target = pathPart === "" ? file : resolve(file, pathPart);
      if (target === null) {
        problem(pathPart, "points outside the repository");
        continue;
      }
      if (!tree.exists(target)) {
        problem(target, "names a file that does not exist");
        continue;
      }
      if (anchor === null) continue;
      if (!target.endsWith(".md")) problem(target, "has an anchor into a file that is not Markdown");
      else if (!anchorsIn(target).has(anchor)) problem(target, `names #${anchor}, which is no heading of ${target}`);
    }
  }
  return problems;
}

/** The repository path a link in `from` names, or null when it leaves the repository. */
function resolve(from: string, link: string): string | null {
  const joined = link.startsWith("/") ? link.slice(1) : path.posix.join(path.posix.dirname(from), link);
  const normal = path.posix.normalize(joined).replace(/\/$/, "");
  return normal === ".." || normal.startsWith("../") ? null : normal === "" ? "." : normal;
}

/** One line per problem, for a test failure or the command line. */
export function describeProblems(problems: LinkProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: [${p.href}] ${p.problem}`).join("\n");
}
