// Issue 16 item 0 over HTTP (inject) with the real default model: a query for a document's unique
// token (an error code, a SKU, a made-up word, an identifier) finds that document first in hybrid
// mode, although 39 neighbours about the same topic are close to it for the embedding model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, createCollection, createSource, upload, waitIndexed } from "../kit/index.js";

const TOPICS = [
  "The replacement filter fits every model of the kitchen range and ships within two days.",
  "Customers report that the cordless drill battery lasts longer after a full first charge.",
  "The warehouse scanner reads the label and stores the location of each pallet.",
  "Our support team answers questions about invoices, refunds and delivery times.",
];

function token(i: number): string {
  let x = 7919 * (i + 13);
  const letters = () => {
    let s = "";
    for (let k = 0; k < 7; k++) s += "bcdfghjklmnpqrstvwxz"[(x = (x * 48271) % 2147483647) % 20];
    return s;
  };
  switch (i % 4) {
    case 0:
      return `ERR_${letters().toUpperCase()}_${100 + i}`;
    case 1:
      return letters();
    case 2:
      return `SKU-${48000 + i * 37}-${letters().slice(0, 2).toUpperCase()}`;
    default:
      return `fetch${letters()[0]!.toUpperCase()}${letters().slice(1)}Quota`;
  }
}

describe("exact matches first (hybrid)", () => {
  let s: TestServer;
  let key: string;
  let collection: string;
  const docOf = new Map<string, string>();

  beforeAll(async () => {
    s = await startServer({ DEFAULT_PLAN: "enterprise" }, { listen: false });
    expect(await s.rt.embedder!.whenReady()).toBe(true);
    key = (await s.tenant()).adminKey;
    const src = await createSource(s, key, "Products");
    collection = await createCollection(s, key, [src]);
    const files = Array.from({ length: 40 }, (_, i) => ({
      name: `note-${i}.md`,
      content: `# Product note ${i}\n\n${TOPICS[i % TOPICS.length]} ${TOPICS[(i + 1) % TOPICS.length]}\nReference: ${token(i)}. Keep this note with the order.\n`,
    }));
    expect((await upload(s, key, src, files)).status).toBe(202);
    for (const d of await waitIndexed(s, key, src, 120_000)) {
      expect(d.status).toBe("indexed");
      docOf.set(d.source, d.id);
    }
    expect(docOf.size).toBe(40);
  }, 180_000);
  afterAll(async () => {
    await s?.close();
  });

  it("finds each of 40 documents first by its unique token", async () => {
    const misses: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await s.call("POST", "/search", { key, json: { collection_id: collection, query: token(i), top_k: 10 } });
      expect(r.status).toBe(200);
      expect(r.body.mode).toBe("hybrid");
      if (r.body.results[0]?.document_id !== docOf.get(`note-${i}.md`)) misses.push(`${token(i)} -> ${r.body.results[0]?.document_id}`);
    }
    expect(misses).toEqual([]);
  }, 60_000);
});
