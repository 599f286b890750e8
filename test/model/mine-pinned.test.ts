// Mining from a recorded package list (npm run model:data -- --packages): each source reads only
// the packages the list names for it, and the manifest names the listed packages this machine
// lacks or has at another version. The Debian side reads a dpkg database written here; the npm
// side reads this checkout's node_modules.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import { minePairs } from "../../src/model/mining/mine.js";
import { readPinnedPackages } from "../../src/model/mining/pinned.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-mine-pinned-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const npmVersion = (name: string): string => (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;

/** A dpkg database where `gzip` is installed at 9.9-test and owns no files. */
function fakeDpkg(): string {
  const dpkg = path.join(dir, "dpkg");
  fs.mkdirSync(path.join(dpkg, "info"), { recursive: true });
  fs.writeFileSync(path.join(dpkg, "status"), "Package: gzip\nStatus: install ok installed\nVersion: 9.9-test\n\n");
  fs.writeFileSync(path.join(dpkg, "info", "gzip.list"), "");
  return dpkg;
}

function writeList(lines: string[][]): string {
  const file = path.join(dir, "packages.tsv");
  fs.writeFileSync(file, `${[["source", "package", "version", "licence"], ...lines].map((l) => l.join("\t")).join("\n")}\n`);
  return file;
}

describe("model:data --packages", () => {
  it("mines only the listed packages and names those missing or at another version", async () => {
    const list = writeList([
      ["man-pages", "gzip", "1.0-recorded", "GPL"],
      ["man-pages", "no-such-deb", "1.0", "GPL"],
      ["npm-readmes", "npm:pino", npmVersion("pino"), "MIT"],
      ["npm-readmes", "npm:stemmer", "0.0.1-recorded", "MIT"],
      ["npm-readmes", "npm:no-such-npm-package", "1.0.0", "MIT"],
    ]);
    const out = path.join(dir, "out");
    const manifest = await minePairs(out, { only: ["man-pages", "npm-readmes"], pinned: readPinnedPackages(list), dpkgDir: fakeDpkg() });

    expect(manifest.pinned).toEqual({
      missing: ["man-pages no-such-deb", "npm-readmes npm:no-such-npm-package"],
      otherVersion: ["man-pages gzip 1.0-recorded -> 9.9-test", `npm-readmes npm:stemmer 0.0.1-recorded -> ${npmVersion("stemmer")}`],
    });
    // every other package of node_modules is left out: pairs come from pino's README (and
    // stemmer's, where it has sections)
    const npm = manifest.sources.find((s) => s.id === "npm-readmes")!;
    expect(npm.pairs).toBeGreaterThan(0);
    expect(npm.packages.map((p) => p.name)).toContain("npm:pino");
    expect(npm.packages.every((p) => p.name === "npm:pino" || p.name === "npm:stemmer")).toBe(true);
    expect(npm.files).toBeLessThanOrEqual(2);
    const pairs = fs.readFileSync(path.join(out, "pairs.jsonl"), "utf8").trim().split("\n");
    expect(pairs).toHaveLength(manifest.pairs);
  });

  it("mines every installed package without a list, and records no pin report", async () => {
    const manifest = await minePairs(path.join(dir, "all"), { only: ["npm-readmes"], dpkgDir: fakeDpkg() });
    expect(manifest.pinned).toBeUndefined();
    expect(manifest.sources[0]!.files).toBeGreaterThan(50);
  });

  it("refuses a file that is not a package list, saying what its first line should be", () => {
    const file = path.join(dir, "not-a-list.tsv");
    fs.writeFileSync(file, "hello\tworld\n");
    expect(() => readPinnedPackages(file)).toThrow(/first line should be "source<TAB>package<TAB>version<TAB>licence"/);
  });
});
