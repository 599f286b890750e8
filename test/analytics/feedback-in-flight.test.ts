// Feedback on a search whose event is in the batch being written at that moment: the click waits
// for that write instead of polling until its deadline and answering 404. A write slower than
// the deadline (2 flush intervals and 250 ms after the search) made `npm run test:citus` fail now
// and then on a loaded machine; here the write is held open on purpose, past the deadline.
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCollection, createSource, noModelEnv, startServer, upload, waitIndexed, type TestServer } from "../kit/index.js";
import { newSearchKey } from "../../src/store/analytics-codec.js";
import { createSearchLog } from "../../src/services/analytics/analytics-log.js";
import { createAnalyticsService } from "../../src/services/analytics/analytics.js";
import { keylessPrincipal } from "../../src/services/auth/auth-types.js";
import type { AnalyticsStore } from "../../src/store/analytics-types.js";

let s: TestServer;
let tenantId: string;
let collection: string;
let documentId: string;

beforeAll(async () => {
  s = await startServer(noModelEnv(), { listen: false });
  const t = await s.tenant("InFlight");
  tenantId = t.id;
  const src = await createSource(s, t.adminKey);
  collection = await createCollection(s, t.adminKey, [src]);
  await upload(s, t.adminKey, src, [{ name: "gearbox.md", content: "# Gearbox\n\nOil every 2000 hours.\n", type: "text/markdown" }]);
  documentId = (await waitIndexed(s, t.adminKey, src))[0]!.id;
});
afterAll(async () => {
  await s?.close();
});

it("a click on a search whose event is being written waits for the write, past the deadline", async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const real = s.rt.store.analytics;
  // the real store, its batch write held until the test lets it go
  const analytics: AnalyticsStore = { ...real, recordSearches: async (rows, low) => (await held, real.recordSearches(rows, low)) };
  const store = { ...s.rt.store, analytics };
  const flushMs = 20;
  const log = createSearchLog({ store, log: pino({ level: "silent" }), flushMs: 60_000, lowScore: 0.01 });
  const service = createAnalyticsService({ store, log, synonyms: { add: async () => ({ groups: [], mappings: {} }) }, retentionDays: 90, lowScore: 0.01, flushMs });
  // a search 5 s old: its deadline (at + 2 x 20 ms + 250 ms) has long passed
  const at = Date.now() - 5_000;
  const id = newSearchKey(at);
  log.record({ id, tenant_id: tenantId, collection_id: collection, at, kind: "search", origin: "api", query: "gearbox", mode: "lexical", filter: null, hits: 1, top_score: 0.5, top: [{ document_id: documentId, score: 0.5 }], took_ms: 2, actor: null });
  const writing = log.flush(); // takes the buffer: the event is in flight, no longer pending
  const principal = keylessPrincipal((await s.rt.store.tenants.get(tenantId))!, ["admin"] as never);
  let answered = false;
  const click = service.feedback(principal, `srch_${id}`, { type: "click", document_id: documentId, position: 1 }).then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 100));
  expect(answered).toBe(false); // still waiting on the write, not a 404
  release();
  await writing;
  await click;
  expect(answered).toBe(true);
  await log.close();
});
