// npm run health:functions [-- --top N] [-- --max L]: lists the longest functions in src/ (by
// lines, from the TypeScript syntax tree), so a refactor can see where it stands. With --max, exits
// 1 when any function is longer than L lines (issue 18's limit is about 80).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import ts from "typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { top: { type: "string", default: "25" }, max: { type: "string" } } });

const files = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [p] : [];
  });

/** A readable name for a function node: its declaration, variable, property or method name. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return "(anonymous)";
}

const found = [];
for (const file of files(path.join(root, "src"))) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      found.push({ lines: end - start + 1, where: `${path.relative(root, file)}:${start}`, name: nameOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found.slice(0, Number(values.top))) console.log(`${String(f.lines).padStart(5)}  ${f.where}  ${f.name}`);
if (values.max !== undefined) {
  const over = found.filter((f) => f.lines > Number(values.max));
  console.log(`${over.length} of ${found.length} functions are longer than ${values.max} lines`);
  if (over.length) process.exitCode = 1;
}
