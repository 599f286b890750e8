// /retrieve's neighbours come from one store call however many matches it expands (no query per
// range), and /search and /retrieve name a stored chunk the same way (services/chunk-hits.ts).
// A real SQLite store and the real engine (lexical: no model); the spy only counts the calls.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { createEngine } from "../../src/search/engine.js";
import { builtInProfiles } from "../../src/embed/profiles.js";
import { createQuotaService } from "../../src/services/tenants/quotas.js";
import { createSearchService } from "../../src/services/search/search.js";
import type { Principal } from "../../src/services/auth/auth.js";
import type { NewChunk } from "../../src/store/content-types.js";

const CHUNKS_PER_DOCUMENT = 8;
/** the one chunk of each document that mentions gearboxes */
const MATCH_AT = { a: 3, b: 5, c: 1 } as const;

let dir: string;
let store: SqliteStore;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-neighbours-"));
  store = openSqliteStore(dir, { vectorIndex: "exact" });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function chunksOf(documentId: string, match: number): NewChunk[] {
  return Array.from({ length: CHUNKS_PER_DOCUMENT }, (_, position) => ({
    position,
    text: position === match ? `${documentId} chunk ${position} about gearboxes` : `${documentId} chunk ${position} about pulleys`,
    heading_path: ["H"],
    token_count: 5,
    metadata: { p: position },
  }));
}

/** tenant t1 with collection c1 over source s1 holding documents a, b and c */
async function setup() {
  const at = new Date().toISOString();
  store.db.prepare("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES ('t1', 'T', 't1', 'free', 1, ?)").run(at);
  const content = store.content;
  await content.createSource({ id: "s1", tenant_id: "t1", name: "S", source_type: "upload", configuration: {}, error: null, last_synced_at: null, created_at: at }, [], null);
  await content.createCollection({ id: "c1", tenant_id: "t1", name: "C", description: "", settings: {}, created_at: at }, ["s1"]);
  const docs = Object.keys(MATCH_AT).map((id) => ({
    id,
    source: `${id}.md`,
    title: `Title ${id}`,
    source_type: "upload",
    kind: "text",
    content_type: "text/markdown",
    size_bytes: 10,
    content_hash: `h-${id}`,
    metadata: { d: id },
  }));
  await content.upsertDocuments("t1", "s1", docs, null);
  for (const [id, match] of Object.entries(MATCH_AT)) {
    await content.replaceDocumentIndex("t1", id, { title: `Title ${id}`, metadata: { d: id } }, chunksOf(id, match), null);
  }
  const engine = createEngine({ content, profile: builtInProfiles()[0]!, embedder: null });
  const svc = createSearchService({ store, engine, quotas: createQuotaService({ store }) });
  const tenant = (await store.tenants.get("t1"))!;
  const principal = { tenant, scopes: ["search"], authMethod: "api_key", key: null, userId: null, role: null, sessionId: null } satisfies Principal;
  const reads = vi.spyOn(content, "chunksInRanges");
  return { svc, principal, reads };
}

it("reads the neighbours of every match in one store call", async () => {
  const { svc, principal, reads } = await setup();
  const r = await svc.retrieve(principal, { collection_id: "c1", query: "gearboxes", context_window: 1, relative_cutoff: false });
  expect(reads).toHaveBeenCalledTimes(1);
  const [tenantId, ranges] = reads.mock.calls[0]!;
  expect(tenantId).toBe("t1");
  // the ranges follow the ranking; which document ranks first is the engine's business here
  expect([...ranges].sort((x, y) => x.documentId.localeCompare(y.documentId))).toEqual([
    { documentId: "a", fromPosition: 2, toPosition: 4 },
    { documentId: "b", fromPosition: 4, toPosition: 6 },
    { documentId: "c", fromPosition: 0, toPosition: 2 },
  ]);
  expect(r.contexts.filter((c) => c.expanded).map((c) => [c.document_id, c.position])).toEqual(
    expect.arrayContaining([["a", 2], ["a", 4], ["b", 4], ["b", 6], ["c", 0], ["c", 2]]),
  );
});

it("makes no neighbour call without a context window, and names chunks alike in both answers", async () => {
  const { svc, principal, reads } = await setup();
  const retrieved = await svc.retrieve(principal, { collection_id: "c1", query: "gearboxes", relative_cutoff: false });
  const found = await svc.search(principal, { collection_id: "c1", query: "gearboxes" });
  expect(reads).not.toHaveBeenCalled();
  const context = retrieved.contexts.find((c) => c.document_id === "a")!;
  const hit = found.results.find((h) => h.document_id === "a")!;
  expect([hit.chunk_id, hit.position, hit.title, hit.source, hit.heading_path]).toEqual([context.id, context.position, context.title, context.source, context.heading_path]);
  const stored = store.db.prepare("SELECT id FROM chunks WHERE document_id = 'a' AND position = 3").get() as { id: string };
  expect(hit).toMatchObject({ chunk_id: `chk_${stored.id}`, metadata: { d: "a", p: 3 } });
});
