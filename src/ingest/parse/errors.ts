// Parse failures are the user's problem to fix (re-save, remove a password, convert), so every
// ParseError message is written for the person who uploaded the file and ends up verbatim in
// the document's `error` field. Anything else thrown by a parser is a bug or a library failure.

export class ParseError extends Error {
  override readonly name = "ParseError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isParseError(err: unknown): err is ParseError {
  return err instanceof ParseError;
}

export const NO_TEXT_MESSAGE = "The file contains no text to index.";
