// npm run health:boundaries [-- --root DIR]: folder-level import rules that the cycle check
// (health:cycles) does not see, because a one-way import between two folders is no cycle:
// - a store backend (each folder under src/store/) imports nothing from another, so a new backend
//   never has to borrow from an existing one;
// - the lexical core (src/search/lexical/) and the filter core (src/search/filter/: a search
//   filter's tree and its parser) import nothing else from src/, so every backend can depend on
//   them without reaching up a layer;
// - the store reaches into src/search/ only for those cores (search sits above the store);
// - the rest of src/ reaches the evaluation module (src/evaluation/) through its entry points,
//   index.ts (services) and commands.ts (the CLI's), and evaluation imports nothing from the command line (src/cli/): the bench and the
//   CLI share their terminal helpers through src/terminal/.
// Type-only and dynamic imports count. Exits 1 listing every import that breaks a rule; --root
// checks another tree (its test runs it on a copy of src/ with a bad import added).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";

const files = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [p] : [];
  });

const within = (file, dir) => file === dir || file.startsWith(`${dir}/`);

/** the backend-neutral parts of src/search/ the stores build on */
const CORES = ["src/search/lexical", "src/search/filter"];

/**
 * Each rule: files under `from` (apart from those under `exempt`) may not import a target
 * (repository-relative) that `forbids` accepts.
 */
function rulesFor(backends) {
  const backendRules = backends.map((b) => ({
    from: b,
    forbids: (target) => backends.some((other) => other !== b && within(target, other)),
    why: "a store backend imports nothing from another backend",
  }));
  return [
    ...backendRules,
    {
      from: "src/search/lexical",
      forbids: (target) => within(target, "src") && !within(target, "src/search/lexical"),
      why: "the lexical core imports nothing else from src/",
    },
    {
      from: "src/search/filter",
      forbids: (target) => within(target, "src") && !within(target, "src/search/filter"),
      why: "the filter core imports nothing else from src/",
    },
    {
      from: "src/store",
      forbids: (target) => within(target, "src/search") && !CORES.some((core) => within(target, core)),
      why: "the store uses only the lexical and filter cores of src/search/",
    },
    {
      from: "src",
      exempt: "src/evaluation",
      forbids: (target) => within(target, "src/evaluation") && !["src/evaluation/index.ts", "src/evaluation/commands.ts"].includes(target),
      why: "the evaluation module is imported through src/evaluation/index.ts or commands.ts",
    },
    {
      from: "src/evaluation",
      forbids: (target) => within(target, "src/cli") || target === "src/cli.ts",
      why: "evaluation imports nothing from the command line",
    },
  ];
}

/**
 * The imports under `root`/src that break a rule ("file imports spec (target): why"), with the
 * store backends found (each folder under src/store/) and how many rules were checked.
 */
export function boundaryViolations(root) {
  const src = path.join(root, "src");
  /** repository-relative, with forward slashes */
  const rel = (p) => path.relative(root, p).split(path.sep).join("/");
  // the file an import specifier names (relative specifiers only; packages are outside the rules)
  const target = (file, spec) => (spec.startsWith(".") ? rel(path.resolve(path.dirname(file), spec)).replace(/\.(m?)js$/, ".$1ts") : null);
  const backends = fs
    .readdirSync(path.join(src, "store"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `src/store/${e.name}`);
  const rules = rulesFor(backends);
  const broken = [];
  for (const file of files(src)) {
    const from = rel(file);
    const applicable = rules.filter((r) => within(from, r.from) && !(r.exempt && within(from, r.exempt)));
    if (applicable.length === 0) continue;
    // preProcessFile reads import/export declarations and import() calls, not comments or strings
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
    for (const imp of importedFiles) {
      const to = target(file, imp.fileName);
      if (!to) continue;
      for (const r of applicable) if (r.forbids(to)) broken.push(`${from} imports ${imp.fileName} (${to}): ${r.why}`);
    }
  }
  return { broken, backends, rules: rules.length };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { root: { type: "string" } } });
  const root = path.resolve(values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  const { broken, backends, rules } = boundaryViolations(root);
  if (broken.length > 0) {
    console.error(`import boundaries: ${broken.length} import(s) break a rule`);
    for (const b of broken) console.error(`  ${b}`);
    process.exit(1);
  }
  console.log(`import boundaries: clean (${rules} rules; store backends: ${backends.map((b) => b.slice("src/store/".length)).join(", ")})`);
}
