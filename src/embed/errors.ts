// Typed errors of the embedding layer. services/ maps them to HTTP (503 for unavailable, 500 for
// the rest); embed/ sits below services/ and so does not use ServiceError itself.

/** The profile or profiles file is invalid; the message names the file, profile and field. */
export class EmbeddingProfileError extends Error {
  override readonly name = "EmbeddingProfileError";
}

/** The model cannot embed (not found, failed to load, misconfigured); `message` says what to do. */
export class EmbedderUnavailableError extends Error {
  override readonly name = "EmbedderUnavailableError";
}

/** One embedding request failed (remote server error, timeout, wrong dimension, worker crash). */
export class EmbeddingError extends Error {
  override readonly name = "EmbeddingError";
  constructor(
    message: string,
    /** whether trying the same input again later can succeed (network, 429, 5xx, worker crash) */
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
