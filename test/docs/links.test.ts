// The documentation's links hold: every relative link in README.md and docs/**/*.md names a file
// of the repository, and every #anchor a heading of the Markdown file it points into. The checker
// itself is held to broken links of each kind first.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkLinks, describeProblems, type DocTree } from "../../scripts/docs/links.js";
import { anchorsOf, slug } from "../../scripts/docs/markdown.js";

const diskTree: DocTree = {
  exists: (file) => fs.existsSync(file),
  read: (file) => fs.readFileSync(file, "utf8"),
};

function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = path.posix.join(dir, e.name);
      return e.isDirectory() ? walk(p) : p.endsWith(".md") ? [p] : [];
    });
  return ["README.md", ...walk("docs")];
}

/**
 * Files that another branch is writing and this one already links to. A link to one of them may
 * point nowhere until that branch lands; from then on the entry must go (the last test says so).
 */
const PENDING = new Set<string>([]);

describe("documentation links", () => {
  it("name files that exist and headings that exist", () => {
    const files = docFiles();
    expect(files.length).toBeGreaterThan(10);
    const problems = checkLinks(files, diskTree).filter((p) => !(PENDING.has(p.target) && !fs.existsSync(p.target)));
    expect(describeProblems(problems)).toBe("");
  });

  it("name no path of one developer's machine", () => {
    const offenders = docFiles().flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (/(^|[\s`'"(])\/(work|farm|home|root)\//.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders.join("\n")).toBe("");
  });

  it("wait for no pending file that exists by now", () => {
    const landed = [...PENDING].filter((f) => fs.existsSync(f));
    expect(landed, `${landed.join(", ")} exists now: remove it from PENDING in test/docs/links.test.ts`).toEqual([]);
  });
});

describe("the link checker", () => {
  const tree = (files: Record<string, string>): DocTree => ({
    exists: (f) => f in files || Object.keys(files).some((k) => k.startsWith(`${f}/`)),
    read: (f) => files[f] ?? "",
  });

  it("reports a missing file, a missing heading, a path outside the repository and an anchor into a non-Markdown file", () => {
    const files = {
      "docs/a.md": [
        "# Guide",
        "",
        "See [b](b.md#second-part), [gone](missing.md), [typo](b.md#secnd-part), [up](../../x.md),",
        "[code](../src/x.ts#L3), [self](#guide), [folder](../src), [site](https://example.com/a#b).",
        "",
        "```",
        "[not a link](nowhere.md)",
        "```",
      ].join("\n"),
      "docs/b.md": "# B\n\n## Second part\n",
      "src/x.ts": "",
    };
    const problems = checkLinks(["docs/a.md"], tree(files));
    expect(problems.map((p) => [p.href, p.problem])).toEqual([
      ["missing.md", "names a file that does not exist"],
      ["b.md#secnd-part", "names #secnd-part, which is no heading of docs/b.md"],
      ["../../x.md", "points outside the repository"],
      ["../src/x.ts#L3", "has an anchor into a file that is not Markdown"],
    ]);
    expect(problems[0]).toMatchObject({ file: "docs/a.md", line: 3, target: "docs/missing.md" });
  });

  it("makes anchors as GitHub does: punctuation dropped, code spans kept, repeats numbered", () => {
    expect(slug("`POST /benchmarks/{suite_id}/tune`")).toBe("post-benchmarkssuite_idtune");
    expect(slug("Scale-out (PostgreSQL + Redis)")).toBe("scale-out-postgresql--redis");
    const anchors = anchorsOf("# Q&A: `quarry serve`\n\n## Notes\n\n## Notes\n\n<a id=\"custom\"></a>\n");
    expect([...anchors].sort()).toEqual(["custom", "notes", "notes-1", "qa-quarry-serve"]);
  });
});
