// The evaluation sets' documents never become training pairs: the package and path rules the
// miner applies to Debian packages and to the npm READMEs alike. Paths of this checkout are
// resolved from where the tests run, so a clone anywhere checks the same rules.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { heldOutPackage, heldOutPath } from "../../src/held-out-corpora.js";

describe("held-out training sources", () => {
  it("refuses PostgreSQL's, Node.js's and LibreOffice's documentation packages", () => {
    for (const p of ["postgresql-doc-15", "postgresql-15", "libpq-dev", "nodejs", "libnode108", "libreoffice-help-en-us"]) expect(heldOutPackage(p), p).toBe(true);
    for (const p of ["python3.11-doc", "git-doc", "dict-gcide"]) expect(heldOutPackage(p), p).toBe(false);
  });

  it("refuses any path naming postgres, Node.js's docs, LibreOffice or a BEIR set, npm READMEs included", () => {
    for (const f of [
      "/usr/share/doc/postgresql-doc-15/html/sql-select.html",
      path.resolve("node_modules/postgres-date/README.md"),
      "/usr/share/doc/nodejs/api/fs.html",
      "/usr/share/libreoffice/help/en-US/text/swriter/main0000.html",
      "/data/beir/scifact/corpus.jsonl",
      path.resolve("../shared/datasets/scifact/queries.jsonl"),
    ])
      expect(heldOutPath(f), f).toBe(true);
    for (const f of ["/usr/share/doc/python3.11/html/library/sqlite3.html", path.resolve("node_modules/pino/README.md")]) expect(heldOutPath(f), f).toBe(false);
  });
});
