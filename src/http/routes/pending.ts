// Endpoints of the contract whose feature has not landed yet. They are registered with their
// final schemas (so /openapi.json is complete and validation already answers 422) and answer 501
// with a detail. Each entry moves to its own route file when its feature lands.
import type { FastifyPluginAsync } from "fastify";
import { Type, type TSchema } from "@sinclair/typebox";
import type { Scope } from "../../store/types.js";
import { errors, ref } from "../schemas/common.js";
import { notImplemented } from "../../services/errors.js";
import * as C from "../schemas/content.js";
import * as S from "../schemas/search.js";

interface Pending {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  scope: Scope | null;
  tag: string;
  summary: string;
  body?: TSchema;
  querystring?: TSchema;
  status: number;
  response: TSchema;
  feature: string;
}

export const PENDING: Pending[] = [];

export function pendingRoutes(): FastifyPluginAsync {
  return async (app) => {
    for (const p of PENDING) {
      const params = [...p.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
      app.route({
        method: p.method,
        url: p.url,
        config: { scope: p.scope },
        schema: {
          tags: [p.tag],
          summary: p.summary,
          ...(p.body ? { body: p.body } : {}),
          ...(p.querystring ? { querystring: p.querystring } : {}),
          ...(params.length ? { params: Type.Object(Object.fromEntries(params.map((n) => [n, Type.String()]))) } : {}),
          response: { [p.status]: p.response, ...errors(401, 403, 404, 422, 501) },
        },
        handler: async () => {
          throw notImplemented(`${p.method} ${p.url} is part of the ${p.feature} feature, which is not available in this build yet.`);
        },
      });
    }
  };
}

