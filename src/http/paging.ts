// Cursor paging of list endpoints: the body stays the contract's plain array, and the next page
// is announced in a `Link: <...>; rel="next"` header (RFC 8288) carrying the same query with the
// new cursor. No header: this was the last page.
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "@sinclair/typebox";

export const PAGE_LIMIT_MAX = 1000;

/** limit and cursor query parameters, to spread into a route's querystring schema */
export const pagingQuery = (defaultLimit: number) => ({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: defaultLimit, description: `page size (1-${PAGE_LIMIT_MAX})` })),
  cursor: Type.Optional(Type.String({ maxLength: 2000, description: "opaque; taken from the Link rel=\"next\" header of the previous page" })),
});

export function linkNext(req: FastifyRequest, reply: FastifyReply, next: string | null): void {
  if (!next) return;
  const url = new URL(req.url, "http://placeholder");
  url.searchParams.set("cursor", next);
  reply.header("link", `<${url.pathname}${url.search}>; rel="next"`);
}
