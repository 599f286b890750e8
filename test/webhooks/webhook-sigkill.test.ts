// kill -9 during webhook delivery: a real server process (API and worker in one) is SIGKILLed
// while its deliveries hang on the receiver, then started again on the same DATA_DIR. Every event
// is delivered at least once afterwards, each under the webhook-id it had before the kill, so a
// receiver that deduplicates by webhook-id sees every event exactly once.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { LIGHT_ENV, PLATFORM_KEY } from "../kit/index.js";
import { startServerProcess, type ServerProcess } from "../helpers/process.js";
import { multipart, waitFor } from "../content/helpers.js";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-webhook-kill9-"));
const procs: ServerProcess[] = [];
const FILES = 6;

/** Holds every request open while `hold` is set (a receiver that is slow to answer); 200 otherwise. */
function receiver() {
  const held: { id: string; res: http.ServerResponse }[] = [];
  const answered: { id: string; body: any }[] = [];
  const state = { hold: true };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      if (state.hold) return void held.push({ id, res });
      answered.push({ id, body: JSON.parse(Buffer.concat(parts).toString("utf8")) });
      res.writeHead(200).end("ok");
    });
  });
  return { server, held, answered, state };
}

const r = receiver();

afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill9()));
  r.server.closeAllConnections();
  await new Promise((resolve) => r.server.close(resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(p: ServerProcess, method: string, route: string, key: string, body?: unknown) {
  const res = await fetch(p.url + route, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

test("a worker SIGKILLed mid-delivery loses no event: each is delivered after the restart under its webhook-id", async () => {
  await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
  const env = { ...LIGHT_ENV, CRAWL_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_TIMEOUT_SECONDS: "120", WEBHOOK_RETRY_DELAYS: "0.2,0.2,0.2" };
  const first = await startServerProcess(dataDir, env);
  procs.push(first);
  const key = (await call(first, "POST", "/tenants", PLATFORM_KEY, { name: "Hooks" })).body.admin_key.key as string;
  const endpoint = (await call(first, "POST", "/webhooks", key, { url: hook, events: ["document.indexed"] })).body;
  const source = (await call(first, "POST", "/data-sources", key, { name: "files", source_type: "upload" })).body.id;
  const mp = multipart({ data_source_id: source }, Array.from({ length: FILES }, (_, i) => ({ name: `note-${i}.txt`, data: `Note ${i} about the harbour tides.` })));
  const up = await fetch(first.url + "/documents/upload", { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": mp.contentType }, body: new Uint8Array(mp.body) });
  expect(up.status).toBe(202);

  // every event is stored as a delivery, and the worker is in the middle of sending some of them
  const before = await waitFor(async () => {
    const log = (await call(first, "GET", `/webhooks/${endpoint.id}/deliveries`, key)).body as any[];
    return log.length === FILES && r.held.length > 0 ? log : null;
  }, "six deliveries stored and one in flight");
  await first.kill9();
  expect(before.every((d) => d.status === "pending")).toBe(true);
  const inFlight = r.held.map((h) => h.id);
  for (const h of r.held) h.res.destroy();
  r.state.hold = false;

  const second = await startServerProcess(dataDir, env);
  procs.push(second);
  const ids = new Set(before.map((d) => d.id));
  await waitFor(async () => (ids.size === new Set(r.answered.map((a) => a.id).filter((id) => ids.has(id))).size ? true : null), "every delivery answered", 60_000);
  // deduplicated by webhook-id: one of each event, for every document, the interrupted ones included
  const unique = new Map(r.answered.map((a) => [a.id, a.body]));
  expect([...unique.keys()].sort()).toEqual([...ids].sort());
  expect(new Set([...unique.values()].map((b) => b.data.document_id)).size).toBe(FILES);
  for (const id of inFlight) expect(unique.has(id)).toBe(true);
  const after = await waitFor(async () => {
    const log = (await call(second, "GET", `/webhooks/${endpoint.id}/deliveries`, key)).body as any[];
    return log.every((d) => d.status === "delivered") ? log : null;
  }, "the log says delivered");
  expect(after).toHaveLength(FILES);
}, 180_000);
