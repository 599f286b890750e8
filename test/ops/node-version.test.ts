// One Node line everywhere: package.json's engines, the release .ci/run fetches and tests on
// (.nvmrc), what scripts/check-node.mjs accepts, and the Dockerfile's base image.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";

const engines: string = JSON.parse(fs.readFileSync("package.json", "utf8")).engines.node;
const tested = fs.readFileSync(".nvmrc", "utf8").trim();
const dockerNode = /^ARG NODE_VERSION=(\S+)$/m.exec(fs.readFileSync("Dockerfile", "utf8"))?.[1];
const parse = (v: string) => v.replace(/^v/, "").split(".").map(Number);
const atLeast = (a: number[], b: number[]) => (a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!) >= 0;

function checkNode(version: string): { status: number | null; out: string } {
  // check-node.mjs reads process.versions.node; the preload pretends to be another release
  const fake = `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} });`;
  const r = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(fake)}`, "scripts/check-node.mjs"], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("Node version", () => {
  const minimum = /^>=(\d+\.\d+\.\d+)$/.exec(engines)?.[1];

  it("engines names one minimum, and .nvmrc a release of that major that satisfies it", () => {
    expect(minimum, `engines.node reads ${engines}`).toBeDefined();
    expect(tested).toMatch(/^\d+\.\d+\.\d+$/);
    expect(parse(tested)[0]).toBe(parse(minimum!)[0]);
    expect(atLeast(parse(tested), parse(minimum!))).toBe(true);
  });

  it("the Dockerfile builds on the release CI tests", () => {
    expect(dockerNode).toBe(tested);
    expect(fs.readFileSync("Dockerfile", "utf8")).toMatch(/^FROM node:\$\{NODE_VERSION\}-/m);
  });

  it("check-node.mjs accepts engines' minimum and the tested release, and refuses the release before", () => {
    expect(checkNode(minimum!).status).toBe(0);
    expect(checkNode(tested).status).toBe(0);
    const [major, minor] = parse(minimum!);
    const before = checkNode(`${major}.${minor! - 1}.0`);
    expect(before.status).toBe(1);
    expect(before.out).toContain(tested);
    expect(checkNode("20.20.2").status).toBe(1);
  });

  it("this process runs on a Node that engines allows", () => {
    expect(atLeast(parse(process.versions.node), parse(minimum!))).toBe(true);
  });
});
