// Progress of long phases on stderr: one line rewritten in place on a terminal, a plain line every
// 10 seconds otherwise (CI logs, files), always with counts, rate and time left.

export interface Progress {
  update(done: number): void;
  finish(): void;
}

function duration(s: number): string {
  if (!Number.isFinite(s)) return "?";
  if (s < 60) return `${Math.round(s)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function progressLine(label: string, done: number, total: number, elapsedMs: number): string {
  const rate = done / Math.max(elapsedMs / 1000, 1e-3);
  const left = rate > 0 ? (total - done) / rate : Infinity;
  const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
  return `  ${label}: ${done.toLocaleString("en")}/${total.toLocaleString("en")} (${pct}%), ${rate.toFixed(rate < 10 ? 1 : 0)}/s, elapsed ${duration(elapsedMs / 1000)}, ETA ${done >= total ? "done" : duration(left)}`;
}

export function createProgress(label: string, total: number, out: NodeJS.WriteStream = process.stderr): Progress {
  const tty = out.isTTY === true;
  const t0 = performance.now();
  let last = 0;
  let lastDone = 0;
  const show = (done: number, final: boolean) => {
    const line = progressLine(label, done, total, performance.now() - t0);
    if (tty) out.write(`\r${line}\x1b[K${final ? "\n" : ""}`);
    else out.write(`${line}\n`);
  };
  return {
    update(done) {
      lastDone = done;
      const now = performance.now();
      if (now - last < (tty ? 250 : 10_000)) return;
      last = now;
      show(done, false);
    },
    finish() {
      show(lastDone, true);
    },
  };
}
