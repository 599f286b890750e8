// Claim cost of the queue in the database (SQLite) with a large backlog: fair claims (per-tenant
// loads, then a claim for the chosen tenant under its cap) against plain oldest-first claims.
// Usage: npx tsx src/evaluation/bench/queue-claims.ts [queued jobs = 100000] [tenants = 100]
import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import { openSqliteStore } from "../../store/sqlite/index.js";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "claimbench-"));
const store = openSqliteStore(dir);
const N = Number(process.argv[2] ?? 100000), T = Number(process.argv[3] ?? 100);
const ins = store.db.prepare("INSERT INTO tenants (id, name, slug, plan, verified, created_at) VALUES (?, ?, ?, 'free', 1, ?)");
for (let t = 0; t < T; t++) ins.run(`t${t}`, `t${t}`, `t${t}`, new Date().toISOString());
const now = new Date(Date.now() - 1000).toISOString();
const j = store.db.prepare("INSERT INTO jobs (tenant_id, kind, subject, payload, status, attempts, max_attempts, run_after, created_at) VALUES (?, 'ingest', ?, '{}', 'queued', 0, 5, ?, ?)");
store.db.transaction(() => { for (let i = 0; i < N; i++) j.run(`t${i % T}`, `d${i}`, now, now); })();
const c = store.content;
const t0 = performance.now(); let k = 0;
for (; k < 200; k++) {
  const loads = await c.jobTenantLoads(["ingest"], new Date());
  const job = await c.claimJob(["ingest"], new Date(), { owner: "x/1/a", leaseUntil: new Date(Date.now() + 30000), tenantId: loads[k % loads.length].tenant_id, tenantCap: 1 });
  await c.completeJob(job!.id, "x/1/a");
}
const fairMs = (performance.now() - t0) / k;
const t1 = performance.now();
for (k = 0; k < 200; k++) { const job = await c.claimJob(["ingest"], new Date(), { owner: "x/1/a", leaseUntil: new Date(Date.now() + 30000) }); await c.completeJob(job!.id, "x/1/a"); }
const fifoMs = (performance.now() - t1) / k;
console.log(JSON.stringify({ queued: N, tenants: T, fair_claim_ms: +fairMs.toFixed(2), fifo_claim_ms: +fifoMs.toFixed(2) }));
await store.close(); fs.rmSync(dir, { recursive: true, force: true });
