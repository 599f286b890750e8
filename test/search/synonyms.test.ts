// The lexical core's synonym expansion (search/lexical/synonyms.ts): groups both ways, mappings
// one way, phrases as keys and as alternatives, entries normalised as the query parser reads text.
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../src/search/lexical/parse-query.js";
import { compileSynonyms, expandSynonyms } from "../../src/search/lexical/synonyms.js";

const expand = (q: string, set: Parameters<typeof compileSynonyms>[0]) => expandSynonyms(parseQuery(q), compileSynonyms(set));

describe("synonym expansion", () => {
  it("adds every other member of a group, from any member", () => {
    const set = { groups: [["k8s", "Kubernetes", "kube"]], mappings: {} };
    expect(expand("k8s pods", set)).toEqual({ query: { terms: ["k8s", "pods", "kubernetes", "kube"], phrases: [] }, applied: true });
    expect(expand("KUBERNETES pods", set).query.terms).toEqual(["kubernetes", "pods", "k8s", "kube"]);
  });

  it("maps one way only", () => {
    const set = { groups: [], mappings: { pg: ["PostgreSQL"] } };
    expect(expand("pg vacuum", set).query.terms).toEqual(["pg", "vacuum", "postgresql"]);
    expect(expand("postgresql vacuum", set)).toEqual({ query: { terms: ["postgresql", "vacuum"], phrases: [] }, applied: false });
  });

  it("matches a phrase key on consecutive words and adds a phrase alternative as words and phrase", () => {
    const set = { groups: [["New York", "NYC"]], mappings: {} };
    expect(expand("hotels in nyc", set).query).toEqual({ terms: ["hotels", "nyc", "new", "york"], phrases: [["new", "york"]] });
    expect(expand("new york hotels", set).query.terms).toEqual(["new", "york", "hotels", "nyc"]);
    // the words apart are not the phrase
    expect(expand("york new", set).applied).toBe(false);
  });

  it("folds case and accents and skips stop words as the parser does", () => {
    const set = { groups: [["café au lait", "latte"]], mappings: {} };
    expect(expand("a LATTE", set).query).toEqual({ terms: ["latte", "cafe", "au", "lait"], phrases: [["cafe", "au", "lait"]] });
    expect(expand("Cafe au lait please", set).query.terms).toContain("latte");
  });

  it("leaves a query without a key, and an empty table, untouched", () => {
    const q = parseQuery("gearbox oil");
    expect(expandSynonyms(q, compileSynonyms({ groups: [["a1", "b1"]], mappings: {} }))).toEqual({ query: q, applied: false });
    expect(expandSynonyms(q, undefined)).toEqual({ query: q, applied: false });
  });
});
