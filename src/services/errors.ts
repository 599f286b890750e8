// Typed errors raised by services; http/errors.ts maps each kind to a status code in one place.

export type ErrorKind =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "quota_exceeded"
  | "unavailable";

export class ServiceError extends Error {
  constructor(
    public readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (m: string) => new ServiceError("bad_request", m);
export const unauthorized = (m: string) => new ServiceError("unauthorized", m);
export const forbidden = (m: string) => new ServiceError("forbidden", m);
export const conflict = (m: string) => new ServiceError("conflict", m);
export const unavailable = (m: string) => new ServiceError("unavailable", m);

/** A resource outside the caller's tenant is reported exactly like a missing one. */
export const notFound = (what: string, id: string) =>
  new ServiceError("not_found", `${what} '${id}' was not found in this workspace.`);

/** Field-level problems found by a service (after schema validation), reported as 422 items. */
export interface FieldIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

export class ValidationError extends Error {
  constructor(public readonly issues: FieldIssue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
  }
}
