// The README's CLI reference is the commands' own --help text (npm run docs:cli regenerates it).
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { buildProgram, cliReferenceMarkdown, helpTexts } from "../../src/cli/program.js";

describe("README CLI reference", () => {
  it("matches --help of every command", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    const section = /<!-- cli-reference:start -->\n([\s\S]*)<!-- cli-reference:end -->/.exec(readme)?.[1];
    expect(section, "README.md has the cli-reference markers").toBeDefined();
    const helps = helpTexts(buildProgram({ done: () => undefined }));
    expect(section, "README's CLI reference is stale: run npm run docs:cli").toBe(cliReferenceMarkdown(helps));
    for (const c of ["quarry serve", "quarry worker", "quarry backup", "quarry restore", "quarry export", "quarry tenants set-plan", "quarry keys revoke", "quarry import beir", "quarry bench"]) {
      expect(section).toContain(`#### \`${c}\``);
    }
  });
});
