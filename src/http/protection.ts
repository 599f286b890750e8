// Request rate limits and security headers.
//
// Rate limits count per credential: an API key or a console session gets RATE_LIMIT_PER_MINUTE
// requests a minute, and requests without credentials (signup, login, password reset, public
// documents) get RATE_LIMIT_ANONYMOUS_PER_MINUTE per client address. Counting by credential
// rather than address keeps one busy integration behind a NAT from starving another. Probes,
// /metrics and static files are never limited. Every limited response carries the IETF draft
// RateLimit-* headers; a 429 carries Retry-After and the contract's {"detail"} body.
// With REDIS_URL the counts live in Redis, so every API process of a deployment spends the same
// budget; when Redis does not answer, requests pass rather than fail (docs/decisions.md).
import { createHash } from "node:crypto";
import { newRedis, type Redis } from "../redis-client.js";
import type { FastifyInstance, FastifyRequest } from "fastify";
import rateLimit from "@fastify/rate-limit";
import helmet from "@fastify/helmet";
import { SESSION_COOKIE } from "./session-cookie.js";

export interface ProtectionOptions {
  /** requests a minute per API key or session; 0 turns rate limiting off */
  perMinute: number;
  /** requests a minute per client address for requests without credentials */
  anonymousPerMinute: number;
  /** REDIS_URL: counts shared by every API process (unset: this process counts alone) */
  redisUrl?: string | null;
  /** key prefix of the shared counts (QUEUE_PREFIX, one per deployment) */
  prefix?: string;
}

/** a Redis client that fails fast, so an outage costs a request no more than a moment */
function sharedCounts(app: FastifyInstance, url: string): Redis {
  const redis = newRedis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 500 });
  let warned = false;
  redis.on("error", (err) => {
    if (!warned) app.log.warn({ err }, "rate limit counts in Redis unavailable: requests pass unlimited until it answers");
    warned = true;
  });
  redis.on("ready", () => (warned = false));
  app.addHook("onClose", async () => void (await redis.quit().catch(() => redis.disconnect())));
  return redis;
}

const UNLIMITED_PATHS = new Set(["/health", "/livez", "/readyz", "/metrics", "/openapi.json"]);

const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 32);

/** Which budget a request spends: its key, its session, or its address. */
export function rateLimitKey(req: FastifyRequest): string {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && /^bearer\s+\S/i.test(auth)) return `key:${digest(auth.replace(/^bearer\s+/i, ""))}`;
  const session = req.cookies?.[SESSION_COOKIE];
  if (session) return `session:${digest(session)}`;
  return `ip:${req.ip}`;
}

function exempt(req: FastifyRequest): boolean {
  // routes without a declared scope are static files and documentation pages
  return req.routeOptions.config?.scope === undefined || UNLIMITED_PATHS.has(req.url.split("?")[0]);
}

export async function registerRateLimits(app: FastifyInstance, opts: ProtectionOptions): Promise<void> {
  if (opts.perMinute <= 0) return;
  const shared = opts.redisUrl ? { redis: sharedCounts(app, opts.redisUrl), nameSpace: `${opts.prefix ?? "quarry"}:ratelimit:`, skipOnError: true } : {};
  await app.register(rateLimit, {
    ...shared,
    global: true,
    hook: "onRequest",
    timeWindow: 60_000,
    keyGenerator: rateLimitKey,
    max: (_req, key) => (key.startsWith("ip:") ? Math.min(opts.anonymousPerMinute, opts.perMinute) : opts.perMinute),
    allowList: (req) => exempt(req),
    enableDraftSpec: true,
    errorResponseBuilder: (_req, ctx) =>
      Object.assign(
        new Error(
          `Rate limit reached: ${ctx.max} requests a minute for this ${ctx.max === opts.perMinute ? "API key or session" : "address"}. Retry after ${Math.ceil(ctx.ttl / 1000)} s, or ask the operator to raise RATE_LIMIT_PER_MINUTE.`,
        ),
        { statusCode: 429 },
      ),
  });
}

/**
 * Security headers. The content security policy fits the console (a same-origin single-page app:
 * scripts and styles from this origin, API calls to this origin, images inline as data: URLs) and
 * Swagger UI at /docs (its bundle sets inline styles). Nothing may frame the service.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "validator.swagger.io"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
      },
    },
    // API responses are fetched cross-origin by browser clients of the customers' own sites
    crossOriginResourcePolicy: { policy: "cross-origin" },
    hsts: { maxAge: 15_552_000, includeSubDomains: false },
  });
}
