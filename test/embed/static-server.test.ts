// The use-lite-static profile as the active profile of a real server: listed and ready in
// GET /embedding-profiles, documents embedded with it, and hybrid search passing the paraphrase
// fixture's bar (hybrid nDCG@3 >= 0.85 and above both single modes), as the default model must.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";
import type { Principal } from "../../src/services/auth/auth.js";
import { ndcgAtK } from "../../src/evaluation/ranking-metrics.js";

// the paraphrase fixture of test/search-api/fusion-quality.test.ts, run with this profile
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

describe("use-lite-static as the active profile", () => {
  let s: TestServer;
  let key: string;
  let col: string;
  let principal: Principal;
  const docIds: Record<string, string> = {};
  const sourceOf = new Map<string, string>();
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-static-models-"));

  beforeAll(async () => {
    s = await startServer({ EMBEDDING_PROFILE: "use-lite-static", MODELS_DIR: modelsDir }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    const t = await s.tenant();
    key = t.adminKey;
    const tenant = (await s.rt.store.tenants.get(t.id))!;
    principal = { tenant, scopes: ["search"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null };
    const src = await createSource(s, key);
    col = await createCollection(s, key, [src]);
    await upload(s, key, src, Object.entries(DOCS).map(([name, content]) => ({ name, content })));
    for (const d of await waitIndexed(s, key, src)) {
      expect(d.status).toBe("indexed");
      docIds[d.source] = d.id;
      sourceOf.set(d.id, d.source);
    }
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  it("is listed, active and ready, with its own vector index", async () => {
    const r = await s.call("GET", "/embedding-profiles", { key });
    expect(r.status).toBe(200);
    const names = r.body.map((p: any) => p.name);
    expect(names).toContain("default");
    const p = r.body.find((x: any) => x.name === "use-lite-static");
    expect(p).toMatchObject({ provider: "static", dimension: 512, active: true, status: "ready", index_name: "vec_universal_sentence_encoder_lite_static_v1_512" });
    expect(r.body.find((x: any) => x.name === "default").active).toBe(false);
    expect(fs.existsSync(path.join(modelsDir, "static", "use-lite-pieces-v1.bin"))).toBe(true);
  });

  async function meanNdcg(mode: "hybrid" | "lexical" | "vector"): Promise<number> {
    let sum = 0;
    for (const [query, relevant] of CASES) {
      const r = await s.rt.search.search(principal, { collection_id: col, query, top_k: 3 }, { mode, countQuery: false });
      sum += ndcgAtK(r.results.map((h) => sourceOf.get(h.document_id)!), [relevant], 3);
    }
    return sum / CASES.length;
  }

  it("passes the paraphrase fixture: hybrid beats lexical-only and vector-only", async () => {
    const lexical = await meanNdcg("lexical");
    const vector = await meanNdcg("vector");
    const hybrid = await meanNdcg("hybrid");
    expect(lexical).toBeLessThan(0.75);
    expect(hybrid).toBeGreaterThan(lexical);
    expect(hybrid).toBeGreaterThan(vector);
    expect(hybrid).toBeGreaterThanOrEqual(0.85);
    // over HTTP too: a paraphrase with no shared word comes first
    const r = await s.call("POST", "/search", { key, json: { collection_id: col, query: "when does a baby get jabs" } });
    expect(r.body.mode).toBe("hybrid");
    expect(r.body.results[0].document_id).toBe(docIds["vaccines.md"]);
  });

  it("still finds exact identifiers first", async () => {
    const r = await s.call("POST", "/search", { key, json: { collection_id: col, query: "ERR_CONN_RESET" } });
    expect(r.body.results[0].document_id).toBe(docIds["errors.md"]);
  });
});
