// A statement planned against a shard that a Citus tenant isolation or shard move has just
// replaced fails with "could not find valid entry for shard N": its plan's shard list predates the
// metadata change (seen on the one-statement search admission, whose CTEs Citus runs as subplans,
// while test/citus/tenant-move.test.ts split the tenant's shards). Run again, the statement is
// planned on the new shards. Only for statements that are atomic on their own: a failed run left
// nothing behind, so running it again cannot count anything twice.
const STALE_SHARD = /could not find valid entry for shard \d+/;

/** Waits between tries, in ms; a split or move swaps the metadata within milliseconds. */
const WAITS_MS = [10, 50, 200];

export function isStaleShardError(err: unknown): boolean {
  return err instanceof Error && STALE_SHARD.test(err.message);
}

export async function retryStaleShard<T>(run: () => Promise<T>): Promise<T> {
  for (const wait of WAITS_MS) {
    try {
      return await run();
    } catch (err) {
      if (!isStaleShardError(err)) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  return run();
}
