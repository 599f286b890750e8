// The README's configuration table must list every setting config.ts reads.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/config.js";

describe("README configuration table", () => {
  it("has a row for every setting, with its default", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    for (const s of SETTINGS) expect(readme, s.env).toContain(`| \`${s.env}\` | ${s.default} |`);
  });

  it("names no variable that config.ts does not read", () => {
    // the Configuration section's table only: other sections (Scale-out) quote some variables again
    const readme = fs.readFileSync("README.md", "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 1));
    const rows = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(SETTINGS.map((s) => s.env).sort());
  });
});
