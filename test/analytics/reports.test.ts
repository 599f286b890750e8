// The analytics pieces without storage: exact percentiles, interval buckets (UTC days, Monday
// weeks, empty intervals kept), report orders, and the compact forms of ids and hits.
import { describe, expect, it } from "vitest";
import { bucketStart, percentile, series, sortQueries, type QueryStat } from "../../src/services/analytics/analytics-reports.js";
import { atOf, decodeTop, encodeTop, eventIdOf, newSearchKey, packId, rndOf, unpackId } from "../../src/store/analytics-codec.js";
import { normaliseQuery } from "../../src/services/analytics/query-text.js";

describe("reports", () => {
  it("takes nearest-rank percentiles from a histogram", () => {
    const values = [5, 1, 9, 9, 3, 7, 2, 8, 8, 4, 6];
    const hist = [...new Map(values.map((v) => [v, values.filter((x) => x === v).length])).entries()].sort((a, b) => a[0] - b[0]);
    const sorted = [...values].sort((a, b) => a - b);
    for (const p of [0.5, 0.95, 0.01, 1]) expect(percentile(hist, values.length, p)).toBe(sorted[Math.ceil(p * values.length) - 1]);
    expect(percentile([], 0, 0.5)).toBeNull();
  });

  it("buckets by UTC day and Monday week, keeping empty intervals", () => {
    const t = Date.parse("2026-11-27T15:30:00Z"); // a Friday
    expect(new Date(bucketStart(t, "day")).toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(new Date(bucketStart(t, "week")).toISOString()).toBe("2026-11-23T00:00:00.000Z");
    const from = Date.parse("2026-11-25T00:00:00Z");
    const rows = [{ start: Date.parse("2026-11-26T00:00:00Z"), took_ms: 10, searches: 3, zero_results: 1, low_score: 1 }, { start: Date.parse("2026-11-26T00:00:00Z"), took_ms: 30, searches: 1, zero_results: 0, low_score: 0 }];
    const out = series(rows, from, Date.parse("2026-11-28T00:00:00Z"), "day");
    expect(out.map((p) => [p.start.slice(0, 10), p.searches, p.p50_ms, p.p95_ms])).toEqual([["2026-11-25", 0, null, null], ["2026-11-26", 4, 10, 30], ["2026-11-27", 0, null, null]]);
    expect(out[1]).toMatchObject({ zero_result_rate: 0.25, low_score_rate: 0.25 });
  });

  it("orders each report and breaks ties by query text", () => {
    const q = (query: string, count: number, zero_results: number, ctr: number): QueryStat => ({ query, count, zero_results, low_score: 0, clicks: 0, ctr, mean_click_position: null });
    const stats = [q("b", 5, 0, 0.2), q("a", 5, 2, 0), q("c", 9, 9, 0), q("d", 2, 0, 0)];
    expect(sortQueries(stats, "count").map((s) => s.query)).toEqual(["c", "a", "b", "d"]);
    expect(sortQueries(stats, "zero_results").map((s) => s.query)).toEqual(["c", "a"]);
    expect(sortQueries(stats, "low_score")).toEqual([]);
    // never-clicked first among queries that found something; the more searched first
    expect(sortQueries(stats, "ctr").map((s) => s.query)).toEqual(["a", "d", "b"]);
  });
});

describe("compact forms", () => {
  it("search keys carry their time and are 16 url-safe characters", () => {
    const at = Date.parse("2026-11-27T12:00:00.123Z");
    const k = newSearchKey(at);
    expect(k).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(atOf(k)).toBe(at);
    expect(atOf("short")).toBeNaN();
  });

  it("first hits round-trip; generated ids pack their hex tail as bytes, any other id as text", () => {
    const long = "x".repeat(300);
    const top = [{ document_id: "doc_0123456789abcdef0123", score: 0.873101 }, { document_id: "doc_7d2hq0va4c1e9b3f6a58", score: 0.5 }, { document_id: long, score: -0.25 }];
    const b = encodeTop(top);
    expect(b.length).toBe(11 + 4 + (1 + 24 + 4) + (3 + 300 + 4));
    expect(decodeTop(b)).toEqual(top);
    expect(decodeTop(encodeTop([]))).toEqual([]);
    for (const id of ["key_0123456789abcdef0123", "ses_ab", "doc_", "doc_ABCD", "ünïcode", ""]) expect(unpackId(packId(id), 0)).toEqual([id, packId(id).length]);
    expect(packId("key_0123456789abcdef0123").length).toBe(11);
    // PostgreSQL's 2-byte scores: 65,535ths of a calibrated score, clamped to 0..1
    const short = encodeTop(top, 2);
    expect(short.length).toBe(b.length - 3 * 2);
    expect(decodeTop(short, 2)).toEqual([{ ...top[0]!, score: 57_219 / 65_535 }, { ...top[1]!, score: 32_768 / 65_535 }, { ...top[2]!, score: 0 }]);
  });

  it("a search key's random half is a number the stores keep", () => {
    const k = newSearchKey(1);
    expect(rndOf(k)).toBe(Buffer.from(k, "base64url").readUIntBE(6, 6));
    // PostgreSQL's event key: the time, then the random half's first 21 bits
    expect(BigInt(eventIdOf(k))).toBe((1n << 21n) + BigInt(Math.floor(rndOf(k) / 2 ** 27)));
    // keys of one millisecond made by one process never share an event key
    const same = Array.from({ length: 5000 }, () => eventIdOf(newSearchKey(7)));
    expect(new Set(same).size).toBe(same.length);
  });

  it("normalises queries", () => {
    expect(normaliseQuery("  Gearbox\tOIL   interval ")).toBe("gearbox oil interval");
  });
});
