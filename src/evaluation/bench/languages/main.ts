// npm run bench:languages: hit@1 per language of the language bench sets (evaluate.ts), and of
// their questions misspelt (typos.ts), printed as the tables docs/benchmarks.md keeps.
import { evaluateLanguages } from "./evaluate.js";
import { EUROPEAN_SETS } from "./sets-europe.js";
import { UNSPACED_SETS } from "./sets-asia.js";
import { evaluateTypos } from "./typos.js";

const rows = evaluateLanguages([...EUROPEAN_SETS, ...UNSPACED_SETS]);
const f = (x: number) => x.toFixed(2);
console.log("| language | hit@1, English analysis | hit@1, own language | hit@1, one auto collection | detected as its language |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) console.log(`| ${r.language} | ${f(r.english)} | ${f(r.own)} | ${f(r.auto)} | ${f(r.detected)} |`);

const typos = await evaluateTypos([...EUROPEAN_SETS, ...UNSPACED_SETS]);
console.log("");
console.log("| language | misspelt questions | hit@1, typo tolerance off | hit@1, typo tolerance on, own language | hit@1, typo tolerance on, one auto collection |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of typos) console.log(`| ${r.language} | ${r.misspelt} | ${f(r.off)} | ${f(r.own)} | ${f(r.auto)} |`);
