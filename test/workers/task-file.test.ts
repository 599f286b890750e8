// Which file a worker thread starts from a source checkout (src/workers/task-file.ts): tsx's entry
// with the TypeScript module, or with QUARRY_COMPILED_WORKERS the compiled twin in that build, and
// a clear error when the build lacks it. The test run sets the variable (vitest.config.ts), so each
// case sets or clears it itself and puts it back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { taskFile } from "../../src/workers/task-file.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const caller = pathToFileURL(path.join(ROOT, "src/ingest/parse/parse-pool.ts")).href;
const saved = process.env.QUARRY_COMPILED_WORKERS;
afterEach(() => {
  if (saved === undefined) delete process.env.QUARRY_COMPILED_WORKERS;
  else process.env.QUARRY_COMPILED_WORKERS = saved;
});

describe("taskFile", () => {
  it("from sources without a build: tsx's entry, handed the TypeScript module", () => {
    delete process.env.QUARRY_COMPILED_WORKERS;
    const t = taskFile(caller, "parse-worker");
    expect(t.filename).toBe(pathToFileURL(path.join(ROOT, "src/workers/tsx-worker.mjs")).href);
    expect(t.workerData).toEqual({ tsxEntry: pathToFileURL(path.join(ROOT, "src/ingest/parse/parse-worker.ts")).href });
  });

  it("with QUARRY_COMPILED_WORKERS: the same module's .js at the same place in the build", () => {
    const build = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-build-"));
    fs.mkdirSync(path.join(build, "ingest/parse"), { recursive: true });
    fs.writeFileSync(path.join(build, "ingest/parse/parse-worker.js"), "");
    process.env.QUARRY_COMPILED_WORKERS = build;
    expect(taskFile(caller, "parse-worker")).toEqual({ filename: pathToFileURL(path.join(build, "ingest/parse/parse-worker.js")).href });
    // a build without the module is a mistake to name, not a reason to fall back
    expect(() => taskFile(caller, "missing-worker")).toThrow(/has no ingest\/parse\/missing-worker\.js/);
    fs.rmSync(build, { recursive: true, force: true });
  });

  it("compiled code starts its sibling .js, whatever the variable says", () => {
    process.env.QUARRY_COMPILED_WORKERS = "/nowhere";
    expect(taskFile("file:///srv/quarry/dist/ingest/parse/parse-pool.js", "parse-worker")).toEqual({ filename: "file:///srv/quarry/dist/ingest/parse/parse-worker.js" });
  });
});
