// Every route the app registers, as Fastify sees it: a wrapper around the fastify factory (install
// it with vi.mock("fastify", wrapFastify) before the app is imported) records each route's method,
// URL and declared scope through an onRoute hook, so the scope matrix follows the routes' own
// declarations and no route can be forgotten.
import type { RouteOptions } from "fastify";
import type { Scope } from "../../src/store/types.js";

export interface DeclaredRoute {
  method: string;
  url: string;
  /** config.scope as declared; undefined and null both mean no credentials are asked for */
  scope: Scope | null | undefined;
}

export const declaredRoutes: DeclaredRoute[] = [];

type FastifyModule = typeof import("fastify");

export async function wrapFastify(importOriginal: () => Promise<FastifyModule>): Promise<FastifyModule> {
  const mod = await importOriginal();
  const factory = mod.default as unknown as (...args: unknown[]) => ReturnType<FastifyModule["default"]>;
  const wrapped = (...args: unknown[]) => {
    const app = factory(...args);
    app.addHook("onRoute", (r: RouteOptions) => {
      for (const method of [r.method].flat()) declaredRoutes.push({ method, url: r.url, scope: r.config?.scope });
    });
    return app;
  };
  return { ...mod, default: wrapped, fastify: wrapped } as unknown as FastifyModule;
}
