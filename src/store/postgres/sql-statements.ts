// A migration file cut into its statements, so that migrate() sends them one at a time. Citus
// forwards some DDL on its tables (ALTER TABLE ... RENAME, CREATE INDEX on a table it tracks) to
// the workers as the client's own query string; a file of several statements sent whole then
// fails there with "cannot insert multiple commands into a prepared statement" (docs/decisions.md,
// "Distribution on Citus"). Only what separates statements is understood: quoted strings and
// identifiers, dollar-quoted bodies, and comments, inside which a semicolon is text.

/** how far a quoted or commented stretch that starts at `i` runs (the index after it), or i when none starts there */
function skipQuoted(sql: string, i: number): number {
  const ch = sql[i]!;
  const next = sql[i + 1];
  if (ch === "-" && next === "-") {
    const end = sql.indexOf("\n", i);
    return end < 0 ? sql.length : end + 1;
  }
  if (ch === "/" && next === "*") {
    const end = sql.indexOf("*/", i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  if (ch === "'" && /(^|[^A-Za-z0-9_$])[Ee]$/.test(sql.slice(Math.max(0, i - 2), i))) {
    // E'...': a backslash escapes the next character, a quote included
    for (let j = i + 1; j < sql.length; j++) {
      if (sql[j] === "\\") j++;
      else if (sql[j] === "'" && sql[j + 1] === "'") j++;
      else if (sql[j] === "'") return j + 1;
    }
    return sql.length;
  }
  if (ch === "'" || ch === '"') {
    // a doubled quote is the quote itself: the scan just continues past it
    let j = i + 1;
    for (;;) {
      const end = sql.indexOf(ch, j);
      if (end < 0) return sql.length;
      if (sql[end + 1] !== ch) return end + 1;
      j = end + 2;
    }
  }
  if (ch === "$") {
    const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
    if (!tag) return i;
    const end = sql.indexOf(tag[0], i + tag[0].length);
    return end < 0 ? sql.length : end + tag[0].length;
  }
  return i;
}

/** The statements of `sql`, each trimmed and without its semicolon; comment-only stretches dropped. */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const push = (end: number) => {
    const text = sql.slice(start, end).trim();
    // a stretch of comments alone is no statement
    if (text.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, "").trim()) out.push(text);
  };
  while (i < sql.length) {
    const after = skipQuoted(sql, i);
    if (after > i) {
      i = after;
    } else if (sql[i] === ";") {
      push(i);
      start = ++i;
    } else {
      i++;
    }
  }
  push(sql.length);
  return out;
}
