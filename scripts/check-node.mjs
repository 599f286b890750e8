// .ci/run: compares the running Node with package.json's engines (">=X.Y.Z"). Exit 1 when it is
// older than the oldest Node any supported line allows (20.x: what this fleet runs and the suite is
// proven on), a warning when it is older than what every dependency declares (engines).
import fs from "node:fs";

const wanted = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node;
const m = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(wanted);
if (!m) throw new Error(`engines.node must read >=X.Y.Z; got ${wanted}`);
const have = process.versions.node.split(".").map(Number);
const older = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
if (older(have, [20, 19, 0]) < 0) {
  console.error(`Node ${process.versions.node} is too old: Quarry needs ${wanted} (at the very least 20.19). Install Node 22 LTS.`);
  process.exit(1);
}
if (older(have, m.slice(1).map(Number)) < 0) {
  console.warn(`warning: Node ${process.versions.node} is older than engines ${wanted} (cookie@2 and content-disposition@3, under Fastify, declare >=22; Node 20 is end-of-life). The suite passes on this fleet's Node 20.20, but use Node 22 in production.`);
} else {
  console.log(`Node ${process.versions.node} satisfies engines ${wanted}`);
}
