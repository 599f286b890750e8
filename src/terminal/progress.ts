// Progress of long CLI work: a bar with counts and ETA when stderr is a terminal, otherwise one
// plain line at most every 10 s (and at the end), so logs of CI and process managers stay short.
import cliProgress from "cli-progress";

export interface Progress {
  update(done: number, total: number, note?: string): void;
  stop(): void;
}

export function createProgress(label: string, opts: { stream?: NodeJS.WriteStream; plainEveryMs?: number } = {}): Progress {
  const stream = opts.stream ?? process.stderr;
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${label} [{bar}] {value}/{total} {percentage}% | ETA {eta_formatted} | {note}`, stream, hideCursor: true, etaBuffer: 50 },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, note = "") {
        if (!started) {
          bar.start(total, done, { note });
          started = true;
        } else {
          bar.setTotal(total);
          bar.update(done, { note });
        }
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  const every = opts.plainEveryMs ?? 10_000;
  const t0 = Date.now();
  let last = 0;
  let lastDone = -1;
  return {
    update(done, total, note) {
      const now = Date.now();
      if (done === lastDone || (now - last < every && done < total)) return;
      last = now;
      lastDone = done;
      const secs = (now - t0) / 1000;
      const eta = done > 0 && done < total ? `, ETA ${Math.round((secs / done) * (total - done))} s` : "";
      stream.write(`${label} ${done}/${total}${note ? ` (${note})` : ""}, ${secs.toFixed(0)} s${eta}\n`);
    },
    stop() {},
  };
}
