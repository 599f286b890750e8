// Worker identity for job ownership: "<host>/<pid>/<random>". A running job whose owner is on this
// host and whose process is gone (or is this process, but no live queue of it) is taken over at
// once; owners elsewhere are trusted until their lease runs out.
import os from "node:os";
import { randomUUID } from "node:crypto";

const live = new Set<string>();
const host = os.hostname();

export function newOwner(): string {
  const id = `${host}/${process.pid}/${randomUUID().slice(0, 8)}`;
  live.add(id);
  return id;
}

export function releaseOwner(id: string): void {
  live.delete(id);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Owners among `owners` that are certainly dead (same host, process gone or queue stopped). */
export function deadOwners(owners: string[]): string[] {
  return owners.filter((o) => {
    const [h, p] = o.split("/");
    const pid = Number(p);
    if (h !== host || !Number.isInteger(pid)) return false;
    if (pid === process.pid) return !live.has(o);
    return !processExists(pid);
  });
}
