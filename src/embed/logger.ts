// The smallest logger shape the embedders need. pino.Logger satisfies it (its LogFn overloads
// accept `(obj, msg?)` and `(msg)`), so the app passes its pino instance; tests pass silentLogger.

export interface EmbedLogger {
  info(objOrMsg: Record<string, unknown> | string, msg?: string): void;
  warn(objOrMsg: Record<string, unknown> | string, msg?: string): void;
  error(objOrMsg: Record<string, unknown> | string, msg?: string): void;
}

const noop = (): void => {};

export const silentLogger: EmbedLogger = { info: noop, warn: noop, error: noop };
