// Shared bits of the foundation suites: the contract's endpoint list; the rest is the test kit
// (test/kit), re-exported so the suites keep their imports (raw SQL: helpers/store-sql.ts).
export { PLATFORM_KEY, expectDetail, expect422, issueAt, rawRequest, makeKey, ISO_DATE_TIME, LIGHT_ENV, type Issue, type Res } from "../kit/index.js";

export type ContractScope = "search" | "ingest" | "admin" | "platform" | "none" | "session";

/**
 * Every endpoint of the contract (spec/search-service-api.md, "Endpoints"), with the minimum
 * scope from its tables, DESIGN.md section 5 where the contract says "not shown" (tenants:
 * platform; embedding-profiles and resend-verification: search; delete workspace: admin),
 * and the success status. `none` needs no credentials; `session` is the logout cookie.
 */
export const CONTRACT_ENDPOINTS: [method: string, path: string, scope: ContractScope, status: number][] = [
  ["GET", "/health", "none", 200],
  ["GET", "/me", "search", 200],
  ["GET", "/capabilities", "search", 200],
  ["GET", "/embedding-profile", "search", 200],
  ["GET", "/embedding-profiles", "search", 200],
  ["GET", "/openai-tools.json", "search", 200],
  ["POST", "/search", "search", 200],
  ["POST", "/retrieve", "search", 200],
  ["GET", "/collections", "search", 200],
  ["POST", "/collections", "ingest", 201],
  ["GET", "/collections/{collection_id}", "search", 200],
  ["PATCH", "/collections/{collection_id}", "ingest", 200],
  ["DELETE", "/collections/{collection_id}", "ingest", 204],
  ["PUT", "/collections/{collection_id}/data-sources/{data_source_id}", "ingest", 200],
  ["DELETE", "/collections/{collection_id}/data-sources/{data_source_id}", "ingest", 204],
  ["GET", "/data-sources", "search", 200],
  ["POST", "/data-sources", "ingest", 201],
  ["GET", "/data-sources/{data_source_id}", "search", 200],
  ["DELETE", "/data-sources/{data_source_id}", "ingest", 204],
  ["POST", "/data-sources/{data_source_id}/reindex", "ingest", 202],
  ["POST", "/reindex", "ingest", 202],
  ["GET", "/documents", "search", 200],
  ["POST", "/documents/upload", "ingest", 202],
  ["GET", "/documents/{document_id}", "search", 200],
  ["GET", "/documents/{document_id}/chunks", "search", 200],
  ["DELETE", "/documents/{document_id}", "ingest", 204],
  ["POST", "/crawl/check", "ingest", 200],
  ["POST", "/crawl", "ingest", 202],
  ["GET", "/crawl", "search", 200],
  ["GET", "/crawl/{job_id}", "search", 200],
  ["POST", "/crawl/{job_id}/cancel", "ingest", 200],
  ["POST", "/crawl/{job_id}/retry", "ingest", 202],
  ["POST", "/benchmarks", "ingest", 201],
  ["GET", "/benchmarks", "search", 200],
  ["GET", "/benchmarks/{suite_id}", "search", 200],
  ["POST", "/benchmarks/{suite_id}/run", "ingest", 200],
  ["DELETE", "/benchmarks/{suite_id}", "ingest", 204],
  ["GET", "/industry-benchmarks", "search", 200],
  ["GET", "/api-keys", "admin", 200],
  ["POST", "/api-keys", "admin", 201],
  ["DELETE", "/api-keys/{key_id}", "admin", 204],
  ["GET", "/tenants", "platform", 200],
  ["POST", "/tenants", "platform", 201],
  ["POST", "/auth/signup", "none", 201],
  ["POST", "/auth/login", "none", 200],
  ["POST", "/auth/logout", "session", 204],
  ["POST", "/auth/verify", "none", 200],
  ["POST", "/auth/resend-verification", "search", 202],
  ["POST", "/auth/forgot-password", "none", 202],
  ["POST", "/auth/reset-password", "none", 200],
  ["DELETE", "/auth/workspace", "admin", 204],
];

/** A concrete URL for a contract path: every {param} becomes a made-up id. */
export const concrete = (p: string) => p.replace(/\{(\w+)\}/g, (_m, name: string) => `${name.replace(/_id$/, "")}_nope`);
