// The retry of a statement planned on a shard that a Citus split or move replaced: that error is
// tried again until the statement runs; any other error is thrown at once. The cluster case is
// test/citus/tenant-move.test.ts (searches during isolate_tenant_to_new_shard).
import { describe, expect, it } from "vitest";
import { retryStaleShard } from "../../src/store/postgres/stale-shard-retry.js";

describe("retryStaleShard", () => {
  it("runs the statement again after a stale-shard error and returns its answer", async () => {
    let tries = 0;
    const answer = await retryStaleShard(async () => {
      if (++tries < 3) throw new Error("could not find valid entry for shard 102049");
      return "rows";
    });
    expect(answer).toBe("rows");
    expect(tries).toBe(3);
  });

  it("throws any other error at once, and a stale-shard error that outlasts the tries", async () => {
    let tries = 0;
    await expect(
      retryStaleShard(async () => {
        tries++;
        throw new Error("duplicate key value violates unique constraint");
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(tries).toBe(1);
    tries = 0;
    await expect(
      retryStaleShard(async () => {
        tries++;
        throw new Error("could not find valid entry for shard 7");
      }),
    ).rejects.toThrow(/shard 7/);
    expect(tries).toBe(4);
  });
});
