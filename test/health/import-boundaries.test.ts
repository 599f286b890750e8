// npm run health:boundaries (scripts/check-boundaries.mjs): the repository passes, and a copy of
// src/ with one deliberately added import across a boundary fails, naming it. The command itself
// runs twice (exit codes, as CI sees them); the other cases call its check in-process.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = path.resolve("scripts/check-boundaries.mjs");
const { boundaryViolations } = (await import(pathToFileURL(SCRIPT).href)) as {
  boundaryViolations(root: string): { broken: string[]; backends: string[]; rules: number };
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A copy of this repository's src/ with `line` added at the top of `file` (created if absent). */
function copyWith(file: string, line: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-boundaries-"));
  dirs.push(root);
  fs.cpSync("src", path.join(root, "src"), { recursive: true });
  const p = path.join(root, file);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, `${line}\n${fs.existsSync(p) ? fs.readFileSync(p, "utf8") : ""}`);
  return root;
}

const run = (root?: string) => {
  const r = spawnSync(process.execPath, [SCRIPT, ...(root ? ["--root", root] : [])], { encoding: "utf8" });
  return { status: r.status, output: r.stdout + r.stderr };
};

describe("import boundaries check", () => {
  it("exits 0 on this repository and 1 on a copy with an import from one backend into the other", () => {
    const clean = run();
    expect(clean.output).toContain("import boundaries: clean");
    expect(clean.output).toContain("store backends: postgres, s3, sqlite");
    expect(clean.status).toBe(0);
    const bad = run(copyWith("src/store/postgres/content/lexical.ts", 'import { LexicalIndexes } from "../../sqlite/content/lexical-index.js";'));
    expect(bad.status).toBe(1);
    expect(bad.output).toContain(
      "src/store/postgres/content/lexical.ts imports ../../sqlite/content/lexical-index.js (src/store/sqlite/content/lexical-index.ts): a store backend imports nothing from another backend",
    );
  });

  it("counts type-only and dynamic imports, in either direction", () => {
    const typeOnly = boundaryViolations(copyWith("src/store/sqlite/content/search.ts", 'import type { Pool } from "../../postgres/db.js";'));
    expect(typeOnly.broken).toEqual([
      "src/store/sqlite/content/search.ts imports ../../postgres/db.js (src/store/postgres/db.ts): a store backend imports nothing from another backend",
    ]);
    const dynamic = boundaryViolations(copyWith("src/store/sqlite/index.ts", 'export const later = () => import("../postgres/index.js");'));
    expect(dynamic.broken).toHaveLength(1);
    expect(dynamic.broken[0]).toMatch(/^src\/store\/sqlite\/index\.ts imports \.\.\/postgres\/index\.js/);
  });

  it("covers a new backend folder without being told about it", () => {
    const r = boundaryViolations(copyWith("src/store/memory/index.ts", 'import { openDatabase } from "../sqlite/db.js";'));
    expect(r.backends).toEqual(expect.arrayContaining(["src/store/memory", "src/store/postgres", "src/store/sqlite"]));
    expect(r.broken).toEqual(["src/store/memory/index.ts imports ../sqlite/db.js (src/store/sqlite/db.ts): a store backend imports nothing from another backend"]);
  });

  it("fails when the lexical core reaches up into src/, or the store into search/ beyond the core", () => {
    const core = boundaryViolations(copyWith("src/search/lexical/analyze.ts", 'import type { Scored } from "../../store/content-types.js";'));
    expect(core.broken).toEqual(["src/search/lexical/analyze.ts imports ../../store/content-types.js (src/store/content-types.ts): the lexical core imports nothing else from src/"]);
    const store = boundaryViolations(copyWith("src/store/sqlite/content/search.ts", 'import { fuse } from "../../../search/fusion.js";'));
    expect(store.broken).toEqual(["src/store/sqlite/content/search.ts imports ../../../search/fusion.js (src/search/fusion.ts): the store uses only the lexical and filter cores of src/search/"]);
  });

  it("lets the store use the filter core, which itself imports nothing else from src/", () => {
    expect(boundaryViolations(copyWith("src/store/sqlite/content/extra.ts", 'import type { SearchFilter } from "../../../search/filter/types.js";')).broken).toEqual([]);
    const core = boundaryViolations(copyWith("src/search/filter/parse.ts", 'import { fuse } from "../fusion.js";'));
    expect(core.broken).toEqual(["src/search/filter/parse.ts imports ../fusion.js (src/search/fusion.ts): the filter core imports nothing else from src/"]);
  });

  it("keeps the rest of src/ on the evaluation module's entry points, and evaluation off the CLI", () => {
    const deep = boundaryViolations(copyWith("src/http/routes/benchmarks.ts", 'import { benchCommand } from "../../evaluation/bench/run.js";'));
    expect(deep.broken).toEqual([
      "src/http/routes/benchmarks.ts imports ../../evaluation/bench/run.js (src/evaluation/bench/run.ts): the evaluation module is imported through src/evaluation/index.ts or commands.ts",
    ]);
    // inside the module, any file may use any other
    expect(boundaryViolations(copyWith("src/evaluation/benchmarks/extra.ts", 'import { benchCommand } from "../bench/run.js";')).broken).toEqual([]);
    const cli = boundaryViolations(copyWith("src/evaluation/bench/args.ts", 'import { CliError } from "../../cli/program.js";'));
    expect(cli.broken).toEqual(["src/evaluation/bench/args.ts imports ../../cli/program.js (src/cli/program.ts): evaluation imports nothing from the command line"]);
  });

  it("ignores packages and imports named only in comments", () => {
    const r = boundaryViolations(copyWith("src/store/postgres/db.ts", '// import { x } from "../sqlite/db.js";\nimport "node:fs";'));
    expect(r.broken).toEqual([]);
  });
});
