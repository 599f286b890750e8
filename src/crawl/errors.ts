// Typed crawler errors. Messages are written for the person who typed the URL: they say what
// happened and what they can change. The HTTP layer maps UrlPolicyError to 400.

export type UrlPolicyErrorCode =
  | "invalid_url"
  | "unsupported_scheme"
  | "credentials_in_url"
  | "url_too_long"
  | "blocked_address";

export class UrlPolicyError extends Error {
  override readonly name = "UrlPolicyError";
  constructor(
    readonly code: UrlPolicyErrorCode,
    message: string,
    readonly url: string,
    /** the refused address, for blocked_address */
    readonly address?: string,
  ) {
    super(message);
  }
}

export type FetchErrorCode =
  | "dns"
  | "network"
  | "timeout"
  | "aborted"
  | "too_large"
  | "redirect_loop"
  | "too_many_redirects"
  | "bad_redirect";

export class FetchError extends Error {
  override readonly name = "FetchError";
  constructor(
    readonly code: FetchErrorCode,
    message: string,
    readonly url: string,
  ) {
    super(message);
  }
}

/** A short sentence for any error thrown while fetching, for onError and check details. */
export function describeError(err: unknown): string {
  if (err instanceof UrlPolicyError || err instanceof FetchError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
