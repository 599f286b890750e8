// How the CLI reports failure: one readable line that says what went wrong and what to do,
// never a stack trace (QUARRY_DEBUG=1 prints it for people debugging Quarry itself).
import { ConfigError } from "../config.js";
import { ServiceError } from "../services/errors.js";

/** A failure the operator can fix; `fix` is the instruction printed after the message. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly fix: string | null = null,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const trimDot = (s: string) => s.trim().replace(/\.$/, "");

/** The single line printed for an error escaping a command, and the exit code. */
export function describeError(err: unknown): { line: string; code: number } {
  if (err instanceof CliError) {
    return { line: `${trimDot(err.message)}${err.fix ? `. ${trimDot(err.fix)}.` : "."}`, code: err.exitCode };
  }
  if (err instanceof ConfigError) {
    return { line: `Configuration error: ${trimDot(err.message)}. Fix the environment variable and run the command again.`, code: 2 };
  }
  if (err instanceof ServiceError) return { line: `${trimDot(err.message)}.`, code: err.kind === "not_found" ? 3 : 1 };
  const code = (err as { code?: unknown })?.code;
  const msg = err instanceof Error ? err.message : String(err);
  if (code === "EADDRINUSE") return { line: `${trimDot(msg)}. Another process holds the port: stop it or set PORT.`, code: 1 };
  if (code === "EACCES" || code === "EPERM") return { line: `${trimDot(msg)}. Check the permissions of DATA_DIR or run as its owner.`, code: 1 };
  if (code === "SQLITE_BUSY") return { line: `${trimDot(msg)}. The database is busy: try again, or stop the other writer.`, code: 1 };
  return { line: `${trimDot(msg.split("\n")[0] ?? msg)}. Run with QUARRY_DEBUG=1 for the full trace.`, code: 1 };
}
