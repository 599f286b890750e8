// PostgreSQL's choice between walking the shared HNSW graph and scanning a scope exactly
// (vector-search.ts graphPays): the figures are the measured ones its cost constant comes from.
import { describe, expect, it } from "vitest";
import { graphPays } from "../../src/store/postgres/content/vector-search.js";

const EXACT_BELOW = 20_000;
const GRAPH_FROM = 200_000;
const pays = (n: number, rows: number, ef: number) => graphPays(n, rows, ef, EXACT_BELOW, GRAPH_FROM);

describe("graph or exact scan on PostgreSQL", () => {
  it("scans small scopes and walks the graph for very large ones, whatever the table", () => {
    expect(pays(19_999, 20_000, 100)).toBe(false);
    expect(pays(GRAPH_FROM, 50_000_000, 1000)).toBe(true);
  });

  it("walks the graph for a tenant that is most of its table", () => {
    expect(pays(20_000, 20_000, 400)).toBe(true);
    expect(pays(60_000, 100_000, 1000)).toBe(true);
  });

  it("scans a tenant that is a small share of a large table: the walk would discard the other tenants' rows", () => {
    // 20,000 of 200,000: walk 5.5 ms at ef 100, 32 ms at ef 400; scan 16 ms
    expect(pays(20_000, 200_000, 100)).toBe(true);
    expect(pays(20_000, 200_000, 400)).toBe(false);
    // 50 tenants of 20,000: the searched tenant is 2 % of the graph
    expect(pays(20_000, 1_000_000, 100)).toBe(false);
    expect(pays(20_000, 1_000_000, 400)).toBe(false);
  });

  it("keeps the size rule where the table's rows are unknown (a Citus coordinator's shell table)", () => {
    expect(pays(20_000, 0, 1000)).toBe(true);
  });
});
