// docs/reference/api.md is what npm run docs:api writes from the server's own /openapi.json, and
// it documents every operation and every named schema of it.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { DEFAULT_SERVER_URL } from "../../clients/typescript/scripts/generate.js";
import { apiReferenceMarkdown } from "../../scripts/docs/api-reference.js";
import { anchorsOf } from "../../scripts/docs/markdown.js";
import { REFERENCES, generatedBlock } from "../../scripts/docs/references.js";

let s: TestServer;
let doc: Record<string, any>;
beforeAll(async () => {
  s = await startServer({ PUBLIC_URL: DEFAULT_SERVER_URL }, { listen: false });
  doc = (await s.call("GET", "/openapi.json")).body;
});
afterAll(async () => {
  await s?.close();
});

describe("docs/reference/api.md", () => {
  const ref = REFERENCES.api;

  it("is what npm run docs:api writes from /openapi.json now", () => {
    const block = generatedBlock(fs.readFileSync(ref.file, "utf8"), ref);
    expect(block, `${ref.file} has the markers of its generated block`).not.toBeNull();
    expect(block, `${ref.file} is stale: run ${ref.command}`).toBe(apiReferenceMarkdown(doc));
  });

  it("has a section for every operation and every schema, and its links land on them", () => {
    const markdown = apiReferenceMarkdown(doc);
    const anchors = anchorsOf(markdown);
    let operations = 0;
    for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const method of Object.keys(item)) {
        operations++;
        expect(markdown).toContain(`### \`${method.toUpperCase()} ${p}\``);
        expect(markdown).toContain(`Operation id: \`${item[method].operationId}\`.`);
      }
    }
    expect(operations).toBeGreaterThan(50);
    for (const name of Object.keys(doc.components.schemas)) expect(markdown).toContain(`### \`${name}\``);
    const internal = [...markdown.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(internal.length).toBeGreaterThan(100);
    expect(internal.filter((a) => !anchors.has(a))).toEqual([]);
  });
});
