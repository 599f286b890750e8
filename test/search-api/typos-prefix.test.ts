// Issue 28 item 4 over HTTP: typo tolerance (on by default, off per request and per collection),
// `prefix: true` for the word being typed, GET /collections/{id}/suggest, the rules `explain`
// names per hit (typo, prefix, synonyms), and 422s for bad values. Also on PostgreSQL (pg-suites).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { indexedCollection, startServer, type TestServer } from "../kit/index.js";

describe("typo tolerance, prefix search and suggestions", () => {
  let s: TestServer;
  let key: string;
  let col: string;
  const search = (query: string, more: Record<string, unknown> = {}) =>
    s.call("POST", "/search", { key, json: { collection_id: col, query, hybrid: { semantic_ratio: 0 }, explain: true, ...more } });
  const titles = async (query: string, more: Record<string, unknown> = {}) => {
    const r = await search(query, more);
    expect(r.status).toBe(200);
    return r.body.results.map((h: any) => h.title as string);
  };
  const rulesOf = async (query: string, more: Record<string, unknown> = {}) =>
    Object.fromEntries((await search(query, more)).body.results.map((h: any) => [h.title, h.explain.rules.filter((r: string) => ["synonyms", "typo", "prefix"].includes(r))]));
  const suggest = (q: string, more = "", k = key) => s.call("GET", `/collections/${col}/suggest?q=${encodeURIComponent(q)}${more}`, { key: k });

  beforeAll(async () => {
    s = await startServer({}, { listen: false });
    const files = [
      { name: "replication.md", content: "# Streaming replication\n\nReplication keeps a standby server in step with the primary.\n" },
      { name: "kubernetes.md", content: "# Kubernetes\n\nDeploy pods on a Kubernetes cluster.\n" },
      { name: "kube.md", content: "# Kube\n\nThe kube command line.\n" },
      { name: "backups.md", content: "# Backups\n\nTake a base backup before an upgrade.\n" },
    ];
    ({ key, collection: col } = await indexedCollection(s, files));
  }, 120_000);
  afterAll(async () => s?.close());

  it("finds a misspelt word and says so, unless turned off by the request or the collection", async () => {
    expect(await titles("replicaton")).toEqual(["Streaming replication"]);
    // the word the typo stood for is highlighted
    expect((await search("replicaton")).body.results[0].highlights).toEqual(["Replication"]);
    expect(await rulesOf("replicaton standby")).toEqual({ "Streaming replication": ["typo"] });
    expect(await rulesOf("replication")).toEqual({ "Streaming replication": [] });
    expect(await titles("replicaton", { typo_tolerance: false })).toEqual([]);
    // /retrieve takes the same switch
    const r = await s.call("POST", "/retrieve", { key, json: { collection_id: col, query: "bakcups", hybrid: { semantic_ratio: 0 } } });
    expect(r.body.contexts.map((c: any) => c.title)).toEqual(["Backups"]);

    expect((await s.call("PATCH", `/collections/${col}`, { key, json: { settings: { typo_tolerance: false } } })).status).toBe(200);
    expect(await titles("replicaton")).toEqual([]);
    // a request cannot turn on what the collection turned off
    expect(await titles("replicaton", { typo_tolerance: true })).toEqual([]);
    expect((await s.call("PATCH", `/collections/${col}`, { key, json: { settings: {} } })).status).toBe(200);
    expect(await titles("replicaton")).toEqual(["Streaming replication"]);
  });

  it("completes the last word with prefix: true, the exact word first", async () => {
    expect(await titles("kube")).toEqual(["Kube"]);
    expect(await titles("kube", { prefix: true })).toEqual(["Kube", "Kubernetes"]);
    expect(await rulesOf("kube", { prefix: true })).toEqual({ Kube: [], Kubernetes: ["prefix"] });
    expect((await search("deploy kub", { prefix: true })).body.results[0].highlights).toEqual(["Deploy", "Kubernetes"]);
    expect(await titles("deploy kuber", { prefix: true, typo_tolerance: false })).toEqual(["Kubernetes"]);
    // a finished word is not a prefix
    expect(await titles("kube ", { prefix: true })).toEqual(["Kube"]);
  });

  it("names the synonyms rule on the hits a synonym found", async () => {
    expect((await s.call("PUT", `/collections/${col}/synonyms`, { key, json: { groups: [["k8s", "kubernetes"]] } })).status).toBe(200);
    expect(await rulesOf("k8s")).toEqual({ Kubernetes: ["synonyms"] });
    expect((await s.call("PUT", `/collections/${col}/synonyms`, { key, json: {} })).status).toBe(200);
  });

  it("suggests completions from titles, headings and text, keeping what was typed before", async () => {
    const r = await suggest("kub");
    expect(r.status).toBe(200);
    // each is in a title, a heading and a text once: the shorter first
    expect(r.body.suggestions).toEqual(["kube", "kubernetes"]);
    expect((await suggest("deploy repl")).body.suggestions).toEqual(["deploy replication"]);
    expect((await suggest("kub", "&limit=1")).body.suggestions).toEqual(["kube"]);
    expect((await suggest("Kuber")).body.suggestions).toEqual(["kubernetes"]);
    expect((await suggest("zzz")).body.suggestions).toEqual([]);
    expect((await suggest("kube ")).body.suggestions).toEqual([]);
    // a search box's key may call it; another workspace may not see the collection
    const searchKey = (await s.call("POST", "/api-keys", { key, json: { name: "box", scopes: ["search"] } })).body.key;
    expect((await suggest("kub", "", searchKey)).status).toBe(200);
    expect((await suggest("kub", "", (await s.tenant()).adminKey)).status).toBe(404);
  });

  it("answers 422 naming a bad value", async () => {
    const typo = await search("kube", { typo_tolerance: "no" });
    expect(typo.status).toBe(422);
    expect(typo.body.detail[0].loc).toEqual(["body", "typo_tolerance"]);
    expect((await search("kube", { prefix: 1 })).body.detail[0].loc).toEqual(["body", "prefix"]);
    const setting = await s.call("PATCH", `/collections/${col}`, { key, json: { settings: { typo_tolerance: "off" } } });
    expect(setting.status).toBe(422);
    expect(JSON.stringify(setting.body.detail)).toContain("typo_tolerance");
    for (const bad of ["&limit=0", "&limit=21", "&limit=two"]) {
      const r = await suggest("kub", bad);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["query", "limit"]);
    }
    const noQ = await s.call("GET", `/collections/${col}/suggest`, { key });
    expect(noQ.status).toBe(422);
    expect(JSON.stringify(noQ.body.detail)).toContain("q");
  });
});
