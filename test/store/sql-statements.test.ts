// migrate() sends a migration file one statement at a time (Citus forwards some DDL to its workers
// as the query string it was sent, and refuses several statements there). The cut must fall only
// between statements: never inside a string, an identifier, a function body or a comment.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { splitStatements } from "../../src/store/postgres/sql-statements.js";

describe("splitting a migration into statements", () => {
  it("cuts at semicolons between statements, trimmed, and drops comment-only stretches", () => {
    expect(splitStatements("CREATE TABLE a (x INT);\n\n  ALTER TABLE a ADD y INT ;\n-- the end; really\n")).toEqual(["CREATE TABLE a (x INT)", "ALTER TABLE a ADD y INT"]);
    expect(splitStatements("SELECT 1")).toEqual(["SELECT 1"]);
    expect(splitStatements(" ;; \n")).toEqual([]);
  });

  it("keeps semicolons inside strings, identifiers, comments and dollar-quoted bodies", () => {
    const body = "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$\nBEGIN\n  EXECUTE format($q$ DELETE FROM t; $q$);\n  RAISE NOTICE 'a;b';\nEND $$";
    const sql = [
      "-- a comment; with a semicolon\nINSERT INTO t VALUES ('it''s; here', \"odd;name\")",
      "/* block; comment */ SELECT E'back\\'slash; still' AS x",
      body,
      "SELECT $tag$ $$; $tag$",
    ].join(";\n");
    expect(splitStatements(sql + ";")).toEqual([
      "-- a comment; with a semicolon\nINSERT INTO t VALUES ('it''s; here', \"odd;name\")",
      "/* block; comment */ SELECT E'back\\'slash; still' AS x",
      body,
      "SELECT $tag$ $$; $tag$",
    ]);
  });

  it("treats $1-style parameters as text, not as dollar quotes", () => {
    expect(splitStatements("SELECT $1; SELECT $2")).toEqual(["SELECT $1", "SELECT $2"]);
  });

  it("cuts every PostgreSQL migration into statements that hold all of its text", () => {
    const dir = path.join(import.meta.dirname, "../../src/store/postgres/migrations");
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".sql"))) {
      const sql = fs.readFileSync(path.join(dir, f), "utf8");
      const parts = splitStatements(sql);
      expect(parts.length, f).toBeGreaterThan(0);
      // nothing but separators and comment-only stretches is lost
      const squeeze = (s: string) => s.replace(/--[^\n]*\n/g, "").replace(/[\s;]/g, "");
      expect(squeeze(parts.join("\n")), f).toBe(squeeze(sql));
    }
  });
});
