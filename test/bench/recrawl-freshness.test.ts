// Bench, not a timed test (issue 30 targets: >= 10x faster, 0 parsed; 3 changed pages, those 3
// re-indexed): crawl, re-crawl unchanged, re-crawl with 3 pages changed. Skipped unless BENCH_PAGES is set:
// `BENCH_PAGES=1000 npx vitest run test/bench/recrawl-freshness.test.ts`; prints one JSON line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../kit/index.js";
import { html, links, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { waitCrawl } from "../crawl-api/helpers.js";

describe.runIf(!!process.env.BENCH_PAGES)("re-crawl of an unchanged loopback site (BENCH_PAGES pages)", () => {
  const N = Number(process.env.BENCH_PAGES ?? 1000);
  let s: TestServer;
  let site: FixtureServer;
  const changed = new Set<number>();
  beforeAll(async () => {
    s = await startServer({ CRAWL_ALLOW_PRIVATE_NETWORKS: "true", DEFAULT_PLAN: "enterprise" });
    site = await serve((req, res, { url }) => {
      if (url.pathname === "/") return send(req, res, { body: html("Home", links("/p1")), etag: true });
      if (url.pathname === "/sitemap.xml") {
        const base = `http://${req.headers.host}`;
        return send(req, res, { type: "application/xml", body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from({ length: N }, (_, i) => `<url><loc>${base}/p${i + 1}</loc></url>`).join("")}</urlset>` });
      }
      const m = /^\/p(\d+)$/.exec(url.pathname);
      if (!m) return send(req, res, { status: 404, type: "text/plain", body: "no" });
      const n = Number(m[1]);
      const extra = changed.has(n) ? " It was revised today with a note about basalt." : "";
      send(req, res, { body: html(`Page ${n}`, `<p>Page ${n} describes item number ${n} of the catalogue in a sentence or two.${extra}</p>`), etag: true });
    });
  }, 300_000);
  afterAll(async () => {
    await s?.close();
    await site?.close();
  });

  it("bench", async () => {
    const t = await s.tenant();
    const key = t.adminKey;
    const allDocs = async (src: string) => Promise.all((await s.rt.store.content.documentIds(t.id, src)).map(async (id) => (await s.rt.store.content.getDocument(t.id, id))!));
    // wall time, and this process's CPU time (every thread: crawler, parsers, the fixture site),
    // which a loaded machine distorts less than the wall clock
    const run = async (json: any) => {
      const t0 = Date.now();
      const cpu0 = process.cpuUsage();
      const r = await s.call("POST", "/crawl", { key, json });
      const job = await waitCrawl(s, key, r.body.id, undefined, 900_000);
      const cpu = process.cpuUsage(cpu0);
      return { ms: Date.now() - t0, cpu_ms: Math.round((cpu.user + cpu.system) / 1000), job };
    };
    // the first crawl's vectors are computed in the background after it; the re-crawls start once
    // they are, so their time is their own
    const vectorsDone = async (src: string) => {
      for (let i = 0; i < 6000; i++) {
        if ((await s.call("GET", `/data-sources/${src}`, { key })).body.chunks_pending_vectors === 0) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const first = await run({ url: `${site.base}/`, max_depth: 1, page_limit: N + 1 });
    const src = first.job.data_source_id;
    const docs1 = new Map((await allDocs(src)).map((d: any) => [d.id, d.updated_at]));
    await vectorsDone(src);
    const second = await run({ url: `${site.base}/`, data_source_id: src, max_depth: 1, page_limit: N + 1 });
    const docs2: any[] = await allDocs(src);
    const touched2 = docs2.filter((d) => docs1.get(d.id) !== d.updated_at).length;
    changed.add(7); changed.add(500); changed.add(999);
    const third = await run({ url: `${site.base}/`, data_source_id: src, max_depth: 1, page_limit: N + 1 });
    const docs3: any[] = await allDocs(src);
    const touched3 = docs3.filter((d) => docs1.get(d.id) !== d.updated_at).map((d) => new URL(d.source).pathname);
    const pick = (j: any) => ({ pages_crawled: j.pages_crawled, new: j.pages_new, changed: j.pages_changed, unchanged: j.pages_unchanged, failed: j.pages_failed });
    const phase = (r: { ms: number; cpu_ms: number; job: any }) => ({ ms: r.ms, cpu_ms: r.cpu_ms, ...pick(r.job) });
    console.log(
      JSON.stringify({
        N,
        docs: docs2.length,
        first: phase(first),
        second: { ...phase(second), docsTouched: touched2 },
        third: { ...phase(third), touched: touched3 },
        speedup: +(first.ms / second.ms).toFixed(1),
        cpu_speedup: +(first.cpu_ms / second.cpu_ms).toFixed(1),
      }),
    );
    expect(second.job.pages_unchanged).toBe(N + 1);
  }, 1_800_000);
});
