// Bench, not a timed test (issue 30 target: p95 <= 2 s): webhook delivery latency after the
// event, 40 uploads to one endpoint. Skipped unless BENCH_WEBHOOKS is set:
// `BENCH_WEBHOOKS=1 npx vitest run test/bench/webhook-latency.test.ts`; prints one JSON line.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIGHT_ENV, createSource, startServer, upload, type TestServer } from "../kit/index.js";

describe.runIf(!!process.env.BENCH_WEBHOOKS)("webhook delivery latency after the event (BENCH_WEBHOOKS=1)", () => {
  let s: TestServer;
  let server: http.Server;
  const lat: number[] = [];
  beforeAll(async () => {
    s = await startServer({ ...LIGHT_ENV, CRAWL_ALLOW_PRIVATE_NETWORKS: "true" });
    server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on("data", (c: Buffer) => parts.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(parts).toString());
        lat.push(Date.now() - Date.parse(body.timestamp));
        res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    server.close();
  });

  it("latency", async () => {
    const key = (await s.tenant()).adminKey;
    const port = (server.address() as AddressInfo).port;
    await s.call("POST", "/webhooks", { key, json: { url: `http://127.0.0.1:${port}/`, events: ["document.indexed"] } });
    const src = await createSource(s, key);
    for (let i = 0; i < 40; i++) {
      await upload(s, key, src, [{ name: `f${i}.txt`, content: `File ${i} talks about topic ${i} in a sentence.` }]);
      await new Promise((r) => setTimeout(r, 100));
    }
    const deadline = Date.now() + 120_000;
    while (lat.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const sorted = [...lat].sort((a, b) => a - b);
    const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    console.log(JSON.stringify({ n: lat.length, p50: p(0.5), p95: p(0.95), max: sorted.at(-1) }));
    expect(lat.length).toBe(40);
  }, 300_000);
});
