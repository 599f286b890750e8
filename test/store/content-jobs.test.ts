// Conformance of the job storage on both stores: claims, leases, takeover, cancel, and claims
// racing from two connections (two processes) on one database.
import { afterEach, expect, it } from "vitest";
import { describeEachContentStore, type ContentBackend } from "./content-backends.js";

const cleanup: ContentBackend[] = [];
afterEach(async () => {
  for (const b of cleanup.splice(0).reverse()) await b.close();
});

const K = ["work"];
const lease = (ms: number) => new Date(Date.now() + ms);

describeEachContentStore("content store: jobs", (open) => {
  async function setup() {
    const a = await open();
    cleanup.push(a);
    const b = await a.reopen();
    cleanup.push(b);
    await a.addTenants("t1", "t2");
    return { a: a.content, b: b.content };
  }

  it("claims the oldest ready job, counts attempts, honours owners, retries and failures", async () => {
    const { a } = await setup();
    const id1 = await a.enqueueJob({ tenant_id: "t1", kind: "work", subject: "s1", payload: { x: 1 } });
    await a.enqueueJob({ tenant_id: "t1", kind: "work", subject: "later", delayMs: 60_000 });
    const job = await a.claimJob(K, new Date(), { owner: "w1", leaseUntil: lease(10_000) });
    expect(job).toMatchObject({ id: id1, status: "running", attempts: 1, owner: "w1", payload: { x: 1 } });
    expect(await a.claimJob(K, new Date(), { owner: "w2", leaseUntil: lease(10_000) })).toBeNull(); // the other is delayed
    expect(await a.completeJob(job!.id, "w2")).toBe(false);
    expect(await a.failJob(job!.id, "w1", "oops", new Date(Date.now() - 1))).toBe(true);
    const again = await a.claimJob(K, new Date(), { owner: "w2", leaseUntil: lease(10_000) });
    expect(again).toMatchObject({ id: id1, attempts: 2, last_error: "oops", owner: "w2" });
    expect(await a.failJob(again!.id, "w2", "for good", null)).toBe(true);
    expect(await a.pendingJobCount(K)).toBe(1); // the delayed one; failed jobs are not pending
    expect(await a.completeJob("not-an-id", "w2")).toBe(false);
  });

  it("requeues expired leases and dead owners, flags running jobs for cancel and removes queued ones", async () => {
    const { a } = await setup();
    await a.enqueueJob({ tenant_id: "t1", kind: "work", subject: "s1" });
    await a.enqueueJob({ tenant_id: "t2", kind: "work", subject: "s2" });
    const j1 = await a.claimJob(K, new Date(), { owner: "w1", leaseUntil: lease(-1) });
    const j2 = await a.claimJob(K, new Date(), { owner: "w2", leaseUntil: lease(60_000) });
    expect((await a.jobOwners(K)).sort()).toEqual(["w1", "w2"]);
    expect(await a.requeueStalledJobs(K, new Date(), [])).toBe(1); // w1's lease ran out
    expect(await a.completeJob(j1!.id, "w1")).toBe(false);
    expect(await a.renewJobLeases("w2", lease(60_000))).toEqual([]);
    expect(await a.cancelJobs("work", "s2")).toBe(1);
    expect(await a.renewJobLeases("w2", lease(60_000))).toEqual([j2!.id]);
    expect(await a.cancelJobs("work", "s1")).toBe(1); // queued again: removed
    expect(await a.requeueStalledJobs(K, new Date(), ["w2"])).toBe(1);
    expect(await a.pendingJobCount()).toBe(1);
    // unlessLive: a queued or running job of the subject covers it
    expect(await a.enqueueJob({ tenant_id: "t2", kind: "work", subject: "s2", unlessLive: true })).toBeNull();
  });

  it("two connections claiming together never take one job twice, nor two jobs of one subject", async () => {
    const { a, b } = await setup();
    for (let i = 0; i < 20; i++) await a.enqueueJob({ tenant_id: i % 2 ? "t1" : "t2", kind: "work", subject: `s${i}` });
    await a.claimJob(K, new Date(), { owner: "w0", leaseUntil: lease(60_000) }); // s0 running
    await a.enqueueJob({ tenant_id: "t2", kind: "work", subject: "s0" }); // a newer version waits for it
    const claimed: string[] = [];
    const worker = async (store: typeof a, owner: string) => {
      for (;;) {
        const j = await store.claimJob(K, new Date(), { owner, leaseUntil: lease(60_000) });
        if (!j) return;
        claimed.push(j.subject);
      }
    };
    await Promise.all([worker(a, "wa1"), worker(b, "wb1"), worker(a, "wa2"), worker(b, "wb2")]);
    expect(claimed.sort()).toEqual(Array.from({ length: 19 }, (_, i) => `s${i + 1}`).sort());
    const loads = await a.jobTenantLoads(K, new Date());
    expect(loads).toEqual([{ tenant_id: "t2", ready: 1, running: 10, first_ready: expect.any(String) }]);
  });
});
