// Issue 28 item 3 over HTTP: GET/PUT /collections/{id}/synonyms. A group works both ways and a
// one-way mapping one way, a phrase alternative finds the phrase, a change is searchable at once
// (nothing reindexed), bad entries answer 422 naming them, and another tenant sees a 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexedCollection, startServer, type TestServer } from "../kit/index.js";

describe("collection synonyms", () => {
  let s: TestServer;
  let key: string;
  let col: string;
  const titles = async (query: string) => {
    const r = await s.call("POST", "/search", { key, json: { collection_id: col, query, hybrid: { semantic_ratio: 0 } } });
    expect(r.status).toBe(200);
    return r.body.results.map((h: any) => h.title as string);
  };
  const put = (json: unknown, k = key) => s.call("PUT", `/collections/${col}/synonyms`, { key: k, json });

  beforeAll(async () => {
    s = await startServer({}, { listen: false });
    const files = [
      { name: "kubernetes.md", content: "# Kubernetes\n\nDeploying pods on a Kubernetes cluster with rolling updates.\n" },
      { name: "k8s.md", content: "# Shorthand\n\nOur k8s runbook for on-call engineers.\n" },
      { name: "postgres.md", content: "# PostgreSQL\n\nVacuum and autovacuum settings for PostgreSQL.\n" },
      { name: "pg.md", content: "# Abbreviations\n\nThe pg tools ship with the client.\n" },
      { name: "office.md", content: "# Offices\n\nOur New York office is on Fifth Avenue.\n" },
    ];
    ({ key, collection: col } = await indexedCollection(s, files));
  }, 120_000);
  afterAll(async () => s?.close());

  it("starts empty and changes what a search finds at once, both ways for a group, one way for a mapping", async () => {
    expect((await s.call("GET", `/collections/${col}/synonyms`, { key })).body).toEqual({ groups: [], mappings: {} });
    expect(await titles("k8s")).toEqual(["Shorthand"]);
    expect(await titles("nyc")).toEqual([]);

    const set = { groups: [["k8s", "Kubernetes"], ["NYC", "New York"]], mappings: { pg: ["postgresql"] } };
    const r = await put(set);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(set);
    expect((await s.call("GET", `/collections/${col}/synonyms`, { key })).body).toEqual(set);

    expect((await titles("k8s")).sort()).toEqual(["Kubernetes", "Shorthand"]);
    expect((await titles("kubernetes")).sort()).toEqual(["Kubernetes", "Shorthand"]);
    expect((await titles("pg")).sort()).toEqual(["Abbreviations", "PostgreSQL"]);
    expect(await titles("postgresql")).toEqual(["PostgreSQL"]);
    expect(await titles("nyc")).toEqual(["Offices"]);
    // the alternative's words are highlighted in the snippet
    const hit = (await s.call("POST", "/search", { key, json: { collection_id: col, query: "nyc" } })).body.results[0];
    expect(hit.highlights.join(" ")).toMatch(/New.*York/);
    // kept with the collection's other settings
    expect((await s.call("GET", `/collections/${col}`, { key })).body.settings.synonyms).toEqual(set);

    expect((await put({})).body).toEqual({ groups: [], mappings: {} });
    expect(await titles("k8s")).toEqual(["Shorthand"]);
  });

  it("answers 422 naming an entry with nothing searchable, a group without two different terms, or a bad shape", async () => {
    const empty = await put({ groups: [["k8s", "?!"]] });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([expect.objectContaining({ type: "synonym_empty", loc: ["body", "groups", 0, 1] })]);
    const same = await put({ groups: [["Kubernetes", "kubernetes"]] });
    expect(same.status).toBe(422);
    expect(same.body.detail[0]).toMatchObject({ type: "synonym_group_size", loc: ["body", "groups", 0] });
    const mapping = await put({ mappings: { "...": ["x1"] } });
    expect(mapping.body.detail[0]).toMatchObject({ type: "synonym_empty", loc: ["body", "mappings", "..."] });
    expect((await put({ groups: [["alone"]] })).status).toBe(422);
    expect((await put({ groups: "k8s" })).status).toBe(422);
    expect((await put({ synonyms: [] })).status).toBe(422);
  });

  it("is another tenant's 404, and the search scope may read but not write", async () => {
    const other = (await s.tenant()).adminKey;
    expect((await s.call("GET", `/collections/${col}/synonyms`, { key: other })).status).toBe(404);
    expect((await put({ groups: [["a1", "b1"]] }, other)).status).toBe(404);
    const searchKey = (await s.call("POST", "/api-keys", { key, json: { name: "reader", scopes: ["search"] } })).body.key;
    expect((await s.call("GET", `/collections/${col}/synonyms`, { key: searchKey })).status).toBe(200);
    expect((await put({ groups: [["a1", "b1"]] }, searchKey)).status).toBe(403);
  });
});
