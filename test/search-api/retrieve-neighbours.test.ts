// /retrieve's neighbours come from one store call however many matches it expands (no query per
// range), and /search and /retrieve name a stored chunk the same way (services/chunk-hits.ts).
import { expect, it } from "vitest";
import { createSearchService } from "../../src/services/search.js";
import type { Principal } from "../../src/services/auth.js";
import type { ChunkHit, ChunkRange } from "../../src/store/content-types.js";
import type { Store } from "../../src/store/types.js";
import type { Engine } from "../../src/search/engine.js";
import type { QuotaService } from "../../src/services/quotas.js";

const chunk = (document_id: string, position: number): ChunkHit => ({
  id: `${document_id}-${position}`,
  tenant_id: "t1",
  document_id,
  data_source_id: "s1",
  position,
  heading_path: ["H"],
  text: `${document_id} chunk ${position} about gearboxes`,
  token_count: 5,
  metadata: { p: position },
  embedded_in: null,
  title: `Title ${document_id}`,
  source: `${document_id}.md`,
  document_metadata: { d: document_id },
});

function service() {
  const calls: ChunkRange[][] = [];
  const content = {
    collectionScope: async () => ({ settings: {}, data_source_ids: ["s1"] }),
    chunksInRanges: async (_tenant: string, ranges: readonly ChunkRange[]) => {
      calls.push([...ranges]);
      return ranges.flatMap((r) => [r.fromPosition, r.toPosition].map((p) => chunk(r.documentId, p)));
    },
  };
  const ranked = [chunk("a", 3), chunk("b", 5), chunk("c", 1)].map((c, i) => ({
    chunk: c,
    score: 0.9 - i * 0.01,
    fusedScore: 1 - i * 0.1,
    lexicalRank: i + 1,
    vectorRank: null,
    lexicalScore: 1,
    vectorScore: null,
  }));
  const ids = ranked.map(({ chunk: c, ...scores }) => ({ id: c.id, documentId: c.document_id, ...scores }));
  const engine = {
    rank: async () => ({ mode: "lexical" as const, ranked }),
    rankIds: async () => ({ mode: "lexical" as const, ranked: ids }),
    hydrate: async (_tenant: string, wanted: { id: string }[]) => wanted.map((w) => ranked.find((r) => r.chunk.id === w.id)!),
  } as unknown as Engine;
  const quotas = { consumeQueries: async () => ({ used: 1, limit: null }) } as unknown as QuotaService;
  const svc = createSearchService({ store: { content } as unknown as Store, engine, quotas });
  return { svc, calls };
}

const principal = { tenant: { id: "t1", plan: "free" }, scopes: ["search"] } as unknown as Principal;

it("reads the neighbours of every match in one store call", async () => {
  const { svc, calls } = service();
  const r = await svc.retrieve(principal, { collection_id: "c1", query: "gearboxes", context_window: 1, relative_cutoff: false });
  expect(calls).toHaveLength(1);
  expect(calls[0]).toEqual([
    { documentId: "a", fromPosition: 2, toPosition: 4 },
    { documentId: "b", fromPosition: 4, toPosition: 6 },
    { documentId: "c", fromPosition: 0, toPosition: 2 },
  ]);
  expect(r.contexts.filter((c) => c.expanded).map((c) => [c.document_id, c.position])).toEqual(
    expect.arrayContaining([["a", 2], ["a", 4], ["b", 4], ["b", 6], ["c", 0], ["c", 2]]),
  );
});

it("makes no neighbour call without a context window, and names chunks alike in both answers", async () => {
  const { svc, calls } = service();
  const retrieved = await svc.retrieve(principal, { collection_id: "c1", query: "gearboxes", relative_cutoff: false });
  const found = await svc.search(principal, { collection_id: "c1", query: "gearboxes" });
  expect(calls).toEqual([]);
  const context = retrieved.contexts.find((c) => c.document_id === "a")!;
  const hit = found.results.find((h) => h.document_id === "a")!;
  expect([hit.chunk_id, hit.position, hit.title, hit.source, hit.heading_path]).toEqual([context.id, context.position, context.title, context.source, context.heading_path]);
  expect(hit).toMatchObject({ chunk_id: "chk_a-3", metadata: { d: "a", p: 3 } });
});
