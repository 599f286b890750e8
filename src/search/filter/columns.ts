// One filterable field of every document of a tenant, typed, in memory: what a store keeps so that
// a filter is evaluated (evaluate.ts) and facets counted (facet-tally.ts) without reading each
// document's JSON metadata per query (docs/decisions.md, "Filters in memory"). Backend-neutral:
// values come in as JSON.parse gives them; the rules are those of the stores' SQL (types.ts).

/** what a document holds at a field: absent, a string, a number, true, false, or something no filter value equals (null, an array, an object) */
export const ABSENT = 0;
export const STRING = 1;
export const NUMBER = 2;
export const TRUE = 3;
export const FALSE = 4;
export const OTHER = 5;

/**
 * The value at `path` inside parsed metadata, undefined where absent: each step must be an own key
 * of an object (an array is not walked by name), as SQLite's json_extract and PostgreSQL's #> do.
 */
export function metadataValue(metadata: unknown, path: readonly string[]): unknown {
  let v = metadata;
  for (const key of path) {
    if (typeof v !== "object" || v === null || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** Strings in UTF-8 byte order (SQLite's BINARY collation): code point order, not UTF-16 unit order. */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // a surrogate (a code point above U+FFFF) sorts above every other UTF-16 unit in UTF-8
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** the array, or a copy with room for n (doubling, so appends stay amortised O(1)) */
export const grown = <T extends Uint8Array | Int32Array | Float64Array>(a: T, n: number): T => {
  if (n <= a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(Math.max(n, a.length * 2, 64));
  b.set(a);
  return b;
};

/**
 * A field's value per document ordinal: its kind, the number, or the string as a code into a
 * dictionary (13 bytes a document whatever the string, and one test per distinct string).
 */
export class ValueColumn {
  kinds = new Uint8Array(0);
  nums = new Float64Array(0);
  codes = new Int32Array(0);
  readonly dict: string[] = [];
  private readonly codeOf = new Map<string, number>();

  set(ordinal: number, v: unknown): void {
    if (ordinal >= this.kinds.length) {
      this.kinds = grown(this.kinds, ordinal + 1);
      this.nums = grown(this.nums, ordinal + 1);
      this.codes = grown(this.codes, ordinal + 1);
    }
    let kind = OTHER;
    if (v === undefined) kind = ABSENT;
    else if (typeof v === "string") {
      kind = STRING;
      this.codes[ordinal] = this.code(v);
    } else if (typeof v === "number") {
      kind = NUMBER;
      this.nums[ordinal] = v;
    } else if (v === true) kind = TRUE;
    else if (v === false) kind = FALSE;
    this.kinds[ordinal] = kind;
  }

  /** the kind at an ordinal (ordinals past the end were never set: absent) */
  kind(ordinal: number): number {
    return ordinal < this.kinds.length ? this.kinds[ordinal]! : ABSENT;
  }

  /** the dictionary code of a string, or -1 when no document holds it */
  lookup(s: string): number {
    return this.codeOf.get(s) ?? -1;
  }

  private code(s: string): number {
    let c = this.codeOf.get(s);
    if (c === undefined) {
      c = this.dict.length;
      this.dict.push(s);
      this.codeOf.set(s, c);
    }
    return c;
  }

  memoryBytes(): number {
    let strings = 0;
    for (const s of this.dict) strings += 2 * s.length + 48; // the string, and its dictionary and map entries
    return this.kinds.byteLength + this.nums.byteLength + this.codes.byteLength + strings;
  }
}
