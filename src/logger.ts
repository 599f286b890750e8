// The process logger: JSON lines with ISO timestamps (for log shippers), or LOG_FORMAT=pretty for
// people at a terminal (pino-pretty in a worker thread, so the event loop never formats logs).
import pino, { type Logger } from "pino";

export function createLogger(opts: { level: string; format: "json" | "pretty" }): Logger {
  const base = { level: opts.level, timestamp: pino.stdTimeFunctions.isoTime };
  if (opts.format === "pretty") {
    return pino({ ...base, transport: { target: "pino-pretty", options: { translateTime: "SYS:standard", ignore: "pid,hostname", destination: 1 } } });
  }
  return pino(base);
}
