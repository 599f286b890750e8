// npm run docs:cli: regenerates README's "CLI reference" from the commands' own --help text
// (between the cli-reference markers). test/ops/readme-cli.test.ts fails when it is out of date.
import fs from "node:fs";
import { register } from "tsx/esm/api";

register();
const { buildProgram, helpTexts, cliReferenceMarkdown } = await import("../src/cli/program.ts");
const readme = new URL("../README.md", import.meta.url);
const text = fs.readFileSync(readme, "utf8");
const start = "<!-- cli-reference:start -->";
const end = "<!-- cli-reference:end -->";
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error("README.md lacks the cli-reference markers");
const body = cliReferenceMarkdown(helpTexts(buildProgram({ done: () => undefined })));
fs.writeFileSync(readme, `${text.slice(0, a + start.length)}\n${body}${text.slice(b)}`);
console.log("README.md: CLI reference regenerated");
