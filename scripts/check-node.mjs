// .ci/run: exit 1 when the running Node is older than package.json's engines (">=X.Y.Z"); .ci/run
// then fetches the LTS release named in .nvmrc and runs everything on it. Node 20, which these
// machines still ship, is end-of-life and below what several dependencies declare.
import fs from "node:fs";

const wanted = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const m = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(wanted);
if (!m) throw new Error(`engines.node must read >=X.Y.Z; got ${wanted}`);
const have = process.versions.node.split(".").map(Number);
const older = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
if (older(have, m.slice(1).map(Number)) < 0) {
  console.error(`Node ${process.versions.node} is older than engines ${wanted}: install Node ${fs.readFileSync(new URL("../.nvmrc", import.meta.url), "utf8").trim()} (.nvmrc), or run .ci/run, which fetches it`);
  process.exit(1);
}
console.log(`Node ${process.versions.node} satisfies engines ${wanted}`);
