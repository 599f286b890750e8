import { test } from "vitest";
import { startWithTenant, createSource, upload, settle, chunksOf } from "./helpers.js";
import { mixedBatch } from "./fixtures.js";
test("probe", async () => {
  const t0 = Date.now();
  const c = await startWithTenant();
  console.log("start ms", Date.now() - t0, c.s.rt.embedderStatus());
  const src = await createSource(c);
  const r = await upload(c, src.id, await mixedBatch());
  console.log(r.status, JSON.stringify(r.body.map((d: any) => [d.source, d.status, d.error])));
  const done = await settle(c, r.body.map((d: any) => d.id));
  console.log("settled ms", Date.now() - t0);
  for (const d of done.values()) {
    console.log(d.source, d.status, d.error, d.title, d.chunk_count);
    if (d.status === "indexed") { const ch = await chunksOf(c, d.id); for (const x of ch.chunks) console.log("   ", x.position, JSON.stringify(x.heading_path), JSON.stringify(x.text).slice(0, 100), x.token_count, JSON.stringify(x.metadata), x.embedded); }
  }
  console.log(JSON.stringify((await c.call("GET", `/data-sources/${src.id}`)).body));
  console.log(c.s.rt.embedderStatus());
  await c.s.close();
}, 120000);
