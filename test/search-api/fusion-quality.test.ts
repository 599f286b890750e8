// The paraphrase fixture: half the queries share no words with their document (only vectors can
// find them), half are exact identifiers (BM25's strength). Hybrid must beat both single modes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import { ndcgAtK } from "../../src/evaluation/ranking-metrics.js";
import type { Principal } from "../../src/services/auth/auth.js";

const DOCS: Record<string, string> = {
  "password.md": "# Resetting your password\n\nIf you forgot your login secret, open Settings, then Security, and choose Send reset link.",
  "cats.md": "# Feline nutrition\n\nCats are obligate carnivores. Their food must contain taurine and animal protein.",
  "pasta.md": "# Cooking pasta\n\nBoil a large pot of salted water and stir the spaghetti so it does not stick together.",
  "errors.md": "# Network errors\n\nERR_CONN_RESET appears when the peer closes the socket mid-request.",
  "refused.md": "# Connection errors\n\nERR_CONN_REFUSED appears when nothing listens on the port; ERR_CONN_TIMEOUT when the peer never answers.",
  "storage.md": "# Storage errors\n\nE_DISK_FULL appears when the volume is out of space.",
  "quota.md": "# Quota errors\n\nE_QUOTA_EXCEEDED appears when the account used all of its storage allowance.",
  "solar.md": "# Photovoltaic modules\n\nPanels convert sunlight into electricity; an inverter turns their direct current into alternating current.",
  "vaccines.md": "# Immunisation schedule for infants\n\nThe first injections are given at eight weeks, with boosters at twelve and sixteen weeks.",
  "tax.md": "# Filing deadlines\n\nIndividual returns on form 1040 are due on the fifteenth of April.",
  "corporate.md": "# Business filing\n\nCorporate returns on form 1120 are due in the spring.",
  "config.md": "# Configuration reference\n\nThe max_conn_pool parameter sets how many database connections are kept open.",
  "pool.md": "# Pool settings\n\nThe min_idle_conn parameter sets how many idle database connections are kept warm.",
};

const CASES: [string, string][] = [
  // paraphrases: no content word in common with the relevant document
  ["what should my kitten eat", "cats.md"],
  ["turning daylight into power on my roof", "solar.md"],
  ["when does a baby get jabs", "vaccines.md"],
  ["making noodles for dinner", "pasta.md"],
  // identifiers and exact terms
  ["ERR_CONN_RESET", "errors.md"],
  ["max_conn_pool", "config.md"],
  ["form 1040", "tax.md"],
  ["E_DISK_FULL", "storage.md"],
];

describe("hybrid fusion on the paraphrase fixture", () => {
  let s: TestServer;
  let col: string;
  let principal: Principal;
  const sourceOf = new Map<string, string>();

  beforeAll(async () => {
    // the out-of-the-box model (new deployments' use-lite-int8): its paraphrase matches are what this suite proves
    s = await startServer({ EMBEDDING_PROFILE: "use-lite-int8" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    const t = await s.tenant();
    const src = await createSource(s, t.adminKey);
    col = await createCollection(s, t.adminKey, [src]);
    await upload(s, t.adminKey, src, Object.entries(DOCS).map(([name, content]) => ({ name, content })));
    for (const d of await waitIndexed(s, t.adminKey, src)) sourceOf.set(d.id, d.source);
    const tenant = (await s.rt.store.tenants.get(t.id))!;
    principal = { tenant, scopes: ["search"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
  });
  afterAll(async () => s?.close());

  async function meanNdcg(mode: "hybrid" | "lexical" | "vector"): Promise<number> {
    let sum = 0;
    for (const [query, relevant] of CASES) {
      const r = await s.rt.search.search(principal, { collection_id: col, query, top_k: 3 }, { mode, countQuery: false });
      sum += ndcgAtK(r.results.map((h) => sourceOf.get(h.document_id)!), [relevant], 3);
    }
    return sum / CASES.length;
  }

  it("beats lexical-only and vector-only", async () => {
    const lexical = await meanNdcg("lexical");
    const vector = await meanNdcg("vector");
    const hybrid = await meanNdcg("hybrid");
    expect(lexical).toBeLessThan(0.75); // the paraphrases are out of BM25's reach
    expect(hybrid).toBeGreaterThan(lexical);
    expect(hybrid).toBeGreaterThan(vector);
    expect(hybrid).toBeGreaterThanOrEqual(0.85);
  });
});
