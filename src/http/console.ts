// The web console (console/, a React single-page app) served by the API process.
//
// Only the console's own paths answer with its index.html: the account screens the emails link
// to (/verify-email, /reset-password, ...) and everything under /workspace. Every API path keeps
// answering JSON, and an unknown path still gets the JSON 404 pointing at /docs, because there is
// no catch-all fallback. The built files under /assets have hashed names and are cached for good;
// index.html is revalidated on every load so a new build shows at once.
//
// Without a build (a fresh checkout where `npm install` could not build it) the console paths
// answer 503 with a page that says how to build it, never a blank page.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import fastifyStatic from "@fastify/static";

/** Paths the console's router handles (console/src/App.tsx); keep the two lists together. */
export const CONSOLE_PATHS = ["/", "/login", "/signup", "/verify-email", "/forgot-password", "/reset-password", "/workspace", "/workspace/*"] as const;

/** console/dist of this checkout or package (the same from src/http and from dist/http). */
export function defaultConsoleDir(): string {
  return fileURLToPath(new URL("../../console/dist/", import.meta.url));
}

const MISSING_BUILD = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Quarry console not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>The Quarry console has not been built yet</h1>
<p>The API is running, but the web console's files are missing from <code>console/dist/</code>.
Build them in the Quarry directory with</p>
<pre style="background: #f2f4f7; padding: 0.75rem; border-radius: 6px">npm run build:console</pre>
<p>and reload this page. (<code>npm install</code> and <code>npm start</code> build it too when they can.)</p>
<p>Meanwhile the API works: its reference is at <a href="/docs">/docs</a>.</p>
</body>
</html>
`;

export function consoleRoutes(opts: { dir: string }) {
  const index = path.join(opts.dir, "index.html");

  async function sendIndex(reply: FastifyReply): Promise<FastifyReply> {
    let html: Buffer;
    try {
      html = await fs.promises.readFile(index);
    } catch {
      reply.log.warn({ index }, "console build missing: run npm run build:console");
      return reply.status(503).type("text/html; charset=utf-8").header("cache-control", "no-store").send(MISSING_BUILD);
    }
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(html);
  }

  return async function consolePlugin(app: FastifyInstance): Promise<void> {
    // hashed file names: a changed file is a new URL, so they can be cached for a year
    await app.register(fastifyStatic, {
      root: path.join(opts.dir, "assets"),
      prefix: "/assets/",
      decorateReply: false,
      index: false,
      wildcard: true, // look files up per request: a build made after start is served without a restart
      maxAge: "365d",
      immutable: true,
      suppressWarning: true,
    });
    for (const url of CONSOLE_PATHS) {
      app.get(url, { schema: { hide: true } }, async (_req, reply) => sendIndex(reply));
    }
  };
}
