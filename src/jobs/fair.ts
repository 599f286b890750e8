// Fair scheduling across tenants: the next job goes to the tenant served least recently, and a
// tenant that already runs its share is passed over while someone else waits. A backlog of any
// size therefore delays another tenant's first job by at most the time one running job needs.
import type { TenantJobLoad } from "../store/content-types.js";

export interface Turn {
  tenant_id: string;
  /** the cap to enforce atomically at claim time (undefined: the tenant is alone) */
  cap: number | undefined;
}

export class RoundRobin {
  private tick = 0;
  private readonly served = new Map<string, number>();

  /**
   * Tenants in the order to try. `loads` lists only tenants with ready jobs, oldest waiting first;
   * that order breaks ties between tenants never served by this process.
   */
  order(loads: TenantJobLoad[], tenantConcurrency: number): Turn[] {
    const contended = loads.length > 1;
    const eligible = contended ? loads.filter((l) => l.running < tenantConcurrency) : loads;
    const last = (t: string) => this.served.get(t) ?? -1;
    return [...eligible]
      .sort((a, b) => last(a.tenant_id) - last(b.tenant_id))
      .map((l) => ({ tenant_id: l.tenant_id, cap: contended ? tenantConcurrency : undefined }));
  }

  markServed(tenantId: string): void {
    this.served.set(tenantId, ++this.tick);
    // the map only orders tenants; forgetting old ones just makes them "never served" (first)
    if (this.served.size > 10_000) {
      const cut = this.tick - 5_000;
      for (const [t, n] of this.served) if (n < cut) this.served.delete(t);
    }
  }
}
