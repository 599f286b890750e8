// Endpoints of the contract whose feature has not landed yet. They are registered with their
// final schemas (so /openapi.json is complete and validation already answers 422) and answer 501
// with a detail. Each entry moves to its own route file when its feature lands.
import type { FastifyPluginAsync } from "fastify";
import { Type, type TSchema } from "@sinclair/typebox";
import type { Scope } from "../../store/types.js";
import { Empty, errors, ref } from "../schemas/common.js";
import { notImplemented } from "../../services/errors.js";
import * as C from "../schemas/content.js";
import * as S from "../schemas/search.js";
import * as K from "../schemas/crawl.js";
import * as B from "../schemas/benchmarks.js";
import * as A from "../schemas/account.js";
import { AnyObject } from "../schemas/identity.js";

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

export const PENDING: Pending[] = [
  // search
  { method: "POST", url: "/search", scope: "search", tag: "search", summary: "Hybrid search: one hit per document with snippets", body: ref(S.SearchRequest), status: 200, response: ref(S.SearchResponse), feature: "search" },
  { method: "POST", url: "/retrieve", scope: "search", tag: "search", summary: "Chunks with citations and a token budget, for language models", body: ref(S.RetrieveRequest), status: 200, response: ref(S.RetrieveResponse), feature: "search" },
  // collections
  { method: "GET", url: "/collections", scope: "search", tag: "collections", summary: "List collections", status: 200, response: Type.Array(ref(C.CollectionOut)), feature: "content" },
  { method: "POST", url: "/collections", scope: "ingest", tag: "collections", summary: "Create a collection", body: ref(C.CollectionCreate), status: 201, response: ref(C.CollectionOut), feature: "content" },
  { method: "GET", url: "/collections/:collection_id", scope: "search", tag: "collections", summary: "Get a collection", status: 200, response: ref(C.CollectionOut), feature: "content" },
  { method: "PATCH", url: "/collections/:collection_id", scope: "ingest", tag: "collections", summary: "Update a collection (data_source_ids replaces the whole set)", body: ref(C.CollectionUpdate), status: 200, response: ref(C.CollectionOut), feature: "content" },
  { method: "DELETE", url: "/collections/:collection_id", scope: "ingest", tag: "collections", summary: "Delete a collection (its sources and documents stay)", status: 204, response: Empty, feature: "content" },
  { method: "PUT", url: "/collections/:collection_id/data-sources/:data_source_id", scope: "ingest", tag: "collections", summary: "Attach a data source", status: 200, response: ref(C.CollectionOut), feature: "content" },
  { method: "DELETE", url: "/collections/:collection_id/data-sources/:data_source_id", scope: "ingest", tag: "collections", summary: "Detach a data source (its documents stay indexed for other collections)", status: 204, response: Empty, feature: "content" },
  // data sources and documents
  { method: "GET", url: "/data-sources", scope: "search", tag: "data-sources", summary: "List data sources", querystring: Type.Object({ collection_id: Type.Optional(Type.String()) }), status: 200, response: Type.Array(ref(C.DataSourceOut)), feature: "content" },
  { method: "POST", url: "/data-sources", scope: "ingest", tag: "data-sources", summary: "Create a data source", body: ref(C.DataSourceCreate), status: 201, response: ref(C.DataSourceOut), feature: "content" },
  { method: "GET", url: "/data-sources/:data_source_id", scope: "search", tag: "data-sources", summary: "Get a data source with indexed vs total counts", status: 200, response: ref(C.DataSourceOut), feature: "content" },
  { method: "DELETE", url: "/data-sources/:data_source_id", scope: "ingest", tag: "data-sources", summary: "Delete a data source and every document in it", status: 204, response: Empty, feature: "content" },
  { method: "POST", url: "/data-sources/:data_source_id/reindex", scope: "ingest", tag: "data-sources", summary: "Re-chunk and re-embed the stored content of a source", status: 202, response: ref(C.ReindexOut), feature: "content" },
  { method: "POST", url: "/reindex", scope: "ingest", tag: "data-sources", summary: "Re-chunk and re-embed the whole workspace", status: 202, response: ref(C.ReindexOut), feature: "content" },
  { method: "GET", url: "/documents", scope: "search", tag: "documents", summary: "The 200 most recent documents", querystring: Type.Object({ collection_id: Type.Optional(Type.String()), data_source_id: Type.Optional(Type.String()) }), status: 200, response: Type.Array(ref(C.DocumentOut)), feature: "content" },
  { method: "POST", url: "/documents/upload", scope: "ingest", tag: "documents", summary: "Upload files (multipart: data_source_id, files)", status: 202, response: Type.Array(ref(C.DocumentOut)), feature: "content" },
  { method: "GET", url: "/documents/:document_id", scope: "search", tag: "documents", summary: "Get a document", status: 200, response: ref(C.DocumentOut), feature: "content" },
  { method: "GET", url: "/documents/:document_id/chunks", scope: "search", tag: "documents", summary: "Indexed chunks of a document, in order", querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })) }), status: 200, response: ref(C.ChunkList), feature: "content" },
  { method: "DELETE", url: "/documents/:document_id", scope: "ingest", tag: "documents", summary: "Delete a document, its file and its index entries", status: 204, response: Empty, feature: "content" },
  // crawling
  { method: "POST", url: "/crawl/check", scope: "ingest", tag: "crawl", summary: "Check a site before crawling; indexes nothing", body: ref(K.SiteCheckRequest), status: 200, response: ref(K.SiteCheckOut), feature: "crawl" },
  { method: "POST", url: "/crawl", scope: "ingest", tag: "crawl", summary: "Start a crawl", body: ref(K.CrawlCreate), status: 202, response: ref(K.CrawlOut), feature: "crawl" },
  { method: "GET", url: "/crawl", scope: "search", tag: "crawl", summary: "List crawl jobs", status: 200, response: Type.Array(ref(K.CrawlOut)), feature: "crawl" },
  { method: "GET", url: "/crawl/:job_id", scope: "search", tag: "crawl", summary: "Get a crawl job", status: 200, response: ref(K.CrawlOut), feature: "crawl" },
  { method: "POST", url: "/crawl/:job_id/cancel", scope: "ingest", tag: "crawl", summary: "Cancel a running crawl (indexed pages stay)", status: 200, response: ref(K.CrawlOut), feature: "crawl" },
  { method: "POST", url: "/crawl/:job_id/retry", scope: "ingest", tag: "crawl", summary: "Resume a failed or cancelled crawl", status: 202, response: ref(K.CrawlOut), feature: "crawl" },
  // benchmarks
  { method: "POST", url: "/benchmarks", scope: "ingest", tag: "benchmarks", summary: "Create a benchmark suite", body: ref(B.BenchmarkSuiteCreate), status: 201, response: ref(B.BenchmarkSuiteOut), feature: "benchmarks" },
  { method: "GET", url: "/benchmarks", scope: "search", tag: "benchmarks", summary: "List suites with their latest scores", status: 200, response: Type.Array(ref(B.BenchmarkSuiteOut)), feature: "benchmarks" },
  { method: "GET", url: "/benchmarks/:suite_id", scope: "search", tag: "benchmarks", summary: "Get a suite with its cases and runs", status: 200, response: ref(B.BenchmarkSuiteOut), feature: "benchmarks" },
  { method: "POST", url: "/benchmarks/:suite_id/run", scope: "ingest", tag: "benchmarks", summary: "Run every case now", status: 200, response: ref(B.BenchmarkRunOut), feature: "benchmarks" },
  { method: "DELETE", url: "/benchmarks/:suite_id", scope: "ingest", tag: "benchmarks", summary: "Delete a suite", status: 204, response: Empty, feature: "benchmarks" },
  { method: "GET", url: "/industry-benchmarks", scope: "search", tag: "benchmarks", summary: "Ready-made public question sets", status: 200, response: Type.Array(AnyObject), feature: "benchmarks" },
  // account
  { method: "POST", url: "/auth/signup", scope: null, tag: "account", summary: "Sign up: creates the workspace and a console session", body: ref(A.SignupRequest), status: 201, response: ref(A.AccountOut), feature: "accounts" },
  { method: "POST", url: "/auth/login", scope: null, tag: "account", summary: "Sign in to a console session", body: ref(A.LoginRequest), status: 200, response: ref(A.AccountOut), feature: "accounts" },
  { method: "POST", url: "/auth/logout", scope: null, tag: "account", summary: "End the console session", status: 204, response: Empty, feature: "accounts" },
  { method: "POST", url: "/auth/verify", scope: null, tag: "account", summary: "Verify the email address with the emailed token", body: ref(A.VerifyEmailRequest), status: 200, response: ref(A.MessageOut), feature: "accounts" },
  { method: "POST", url: "/auth/resend-verification", scope: "search", tag: "account", summary: "Send a fresh verification email", status: 202, response: ref(A.MessageOut), feature: "accounts" },
  { method: "POST", url: "/auth/forgot-password", scope: null, tag: "account", summary: "Email a password reset link (202 whether or not the email exists)", body: ref(A.ForgotPasswordRequest), status: 202, response: ref(A.MessageOut), feature: "accounts" },
  { method: "POST", url: "/auth/reset-password", scope: null, tag: "account", summary: "Set a new password with the emailed token", body: ref(A.ResetPasswordRequest), status: 200, response: ref(A.MessageOut), feature: "accounts" },
  { method: "DELETE", url: "/auth/workspace", scope: "admin", tag: "account", summary: "Delete the workspace and everything in it", body: ref(A.DeleteWorkspaceRequest), status: 204, response: Empty, feature: "accounts" },
];

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

