// The Fastify instance a route plugin is given. Route files register their routes through small
// named functions that take it, so each function sees the TypeBox-typed request of its schema.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";

export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];
