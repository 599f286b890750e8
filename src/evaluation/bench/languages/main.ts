// npm run bench:languages: hit@1 per language of the language bench sets (evaluate.ts), printed
// as the table docs/benchmarks.md keeps.
import { evaluateLanguages } from "./evaluate.js";
import { EUROPEAN_SETS } from "./sets-europe.js";
import { UNSPACED_SETS } from "./sets-asia.js";

const rows = evaluateLanguages([...EUROPEAN_SETS, ...UNSPACED_SETS]);
const f = (x: number) => x.toFixed(2);
console.log("| language | hit@1, English analysis | hit@1, own language | hit@1, one auto collection | detected as its language |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.language} | ${f(r.english)} | ${f(r.own)} | ${f(r.auto)} | ${f(r.detected)} |`);
