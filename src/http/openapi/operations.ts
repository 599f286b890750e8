// What /openapi.json says about each operation beyond its schemas: a stable operationId (generated
// clients name their methods after it, so never rename one), the contract's description, and what
// the success answer means. test/agents/openapi checks that every route has an entry.
import { MAX_UPLOAD_TEXT } from "../../config.js";
import { VERSION } from "../../version.js";
import { ANALYTICS_OPERATIONS, ANALYTICS_TAG } from "./analytics-docs.js";

export interface OperationDoc {
  operationId: string;
  /** what the success status means */
  ok: string;
  description?: string;
  /** example of the success body, for a route whose schema has no name in examples.ts */
  example?: unknown;
  /** description and example of another status whose body is not the Error schema */
  other?: Record<string, { description: string; example?: unknown }>;
}

export const TAGS: { name: string; description: string }[] = [
  { name: "search", description: "POST /search for people (snippets, one hit per document), POST /retrieve for language models (full chunks, citations, token budget)." },
  { name: "collections", description: "Collections group data sources; search and retrieve run against one collection." },
  { name: "data-sources", description: "Where content comes from: `upload` (files sent to the service), `website` (pages fetched by a crawl) or `git` (files of a git repository, synced by commit)." },
  { name: "documents", description: "Uploaded files and crawled pages, split into chunks and indexed in the background." },
  { name: "crawl", description: "Check a site, then crawl it into a website data source." },
  { name: "webhooks", description: "Signed POSTs (Standard Webhooks) when documents are indexed or fail and crawls end, retried for over a day, with a delivery log." },
  { name: "agents", description: "Tools for LLM agents: function-calling definitions in each provider's shape and a tool-call endpoint. The MCP server is at /mcp (Streamable HTTP)." },
  { name: "benchmarks", description: "Score retrieval with your own question sets or public ones (BEIR)." },
  { name: "system", description: "Identity, capabilities, embedding profiles and health." },
  { name: "api-keys", description: "Keys for programs; the secret is shown once at creation." },
  { name: "account", description: "Sign-up, console sessions, email verification and password reset." },
  { name: "tenants", description: "Workspaces, managed by the operator's platform key." },
  { name: "audit", description: "The workspace's audit trail (admin)." },
  ANALYTICS_TAG,
  { name: "operations", description: "Probes and metrics for orchestrators and Prometheus (no credentials)." },
];

export const RESPONSE_DESCRIPTIONS: Record<string, string> = {
  "400": "The request cannot be carried out as sent (for example a crawl URL the policy refuses, or an option the deployment does not allow); `detail` says what to change.",
  "401": "Credentials are missing, or the key is not valid, revoked or expired.",
  "403": "The credentials lack the required scope (the message names it), or the email address is not verified yet for a change.",
  "404": "Not found in this workspace (resources of other workspaces look exactly like missing ones).",
  "409": "Conflicts with the current state (for example a crawl already running); `detail` says what to do.",
  "413": `An uploaded file is over ${MAX_UPLOAD_TEXT}.`,
  "415": "No uploaded file has a supported type.",
  "422": "A field is invalid; each item of `detail` names the field (`loc`) and the problem.",
  "429": "A plan limit is reached (sources, documents or queries this month, or too many attempts); `detail` says which and how much room is left.",
  "503": "A dependency is unavailable (for example the job queue, so the crawl did not start); retry.",
};

export const OPERATIONS: Record<string, OperationDoc> = {
  "GET /health": {
    operationId: "getHealth",
    ok: "The service is up; `status` and `checks` report each dependency.",
    description: "Dependency health: API, database, queue, index and model, each with a detail. 503 (same body) when a required dependency is down. No credentials.",
    other: {
      "503": {
        description: "A dependency is down; `checks` says which.",
        example: {
          status: "down",
          version: VERSION,
          checks: { api: { status: "up", detail: null }, database: { status: "down", detail: "database is locked" }, queue: { status: "up", detail: "embedded queue, 3 jobs pending" } },
        },
      },
    },
  },
  "GET /livez": { operationId: "getLiveness", ok: "The process answers.", example: { status: "ok" } },
  "GET /readyz": {
    operationId: "getReadiness",
    ok: "Ready to serve: database, queue and model are up.",
    example: { status: "ready", reasons: [] },
    other: { "503": { description: "Not ready yet; `reasons` says what is missing.", example: { status: "not_ready", reasons: ["the embedding model is still loading"] } } },
  },
  "GET /metrics": { operationId: "getMetrics", ok: "Metrics in the Prometheus text exposition format." },
  "GET /me": { operationId: "getMe", ok: "The caller's tenant, scopes, key or user, plan and usage this month." },
  "GET /capabilities": { operationId: "getCapabilities", ok: "What this deployment allows.", description: "Connectors, whether the crawler may render JavaScript, upload and page size limits, file types and the embedding profile." },
  "GET /embedding-profile": { operationId: "getEmbeddingProfile", ok: "The active embedding profile." },
  "GET /embedding-profiles": { operationId: "listEmbeddingProfiles", ok: "Every profile the deployment defines; `active` marks the one in use." },
  "GET /openai-tools.json": {
    operationId: "getOpenAiTools",
    ok: "Tool definitions in the requested shape, for the tools the caller's scope may run.",
    description:
      "Function-calling tool definitions generated from the same catalogue as the MCP server, valid under strict mode: OpenAI Chat Completions (default), `?format=responses` (OpenAI Responses, flat), `?format=anthropic` (input_schema) or `?format=mcp`. Run a call the model makes with POST /tool-calls.",
  },
  "GET /anthropic-tools.json": { operationId: "getAnthropicTools", ok: "Tool definitions in the Anthropic Messages shape.", description: "The same as `/openai-tools.json?format=anthropic`." },
  "POST /tool-calls": {
    operationId: "callTool",
    ok: "The tool ran; `content` is the text to return to the model. `is_error` is true when the tool could not do what was asked (for example an unknown collection), with the reason in `content`.",
    description: "Runs one tool call the model made (name and arguments as produced), with the caller's key and scopes. Null arguments mean \"use the default\", as strict mode produces them. Ingest tools need an ingest key (403 otherwise).",
  },
  "GET /audit-log": {
    operationId: "listAuditLog",
    ok: "A page of audit entries, newest first; the next page's URL is in the Link header.",
    example: [
      {
        id: "aud_3c2b1a0f9e8d7c6b5a49",
        at: "2026-11-23T09:31:12.000Z",
        actor_type: "api_key",
        actor_id: "key_2c4e6a8b0d1f3a5c7e9b",
        action: "api_key.created",
        target_type: "api_key",
        target_id: "key_9f8e7d6c5b4a39281706",
        detail: { name: "Website search", scopes: ["search"] },
        address: "203.0.113.7",
      },
    ],
  },
  "GET /tenants": { operationId: "listTenants", ok: "Every tenant (operator only)." },
  "POST /tenants": { operationId: "createTenant", ok: "The tenant and its first admin key; the secret is in `admin_key.key`, shown once.", description: "Operator only (platform key)." },
  "PUT /tenants/{tenant_id}/plan": {
    operationId: "setTenantPlan",
    ok: "The tenant on its new plan.",
    example: { id: "ten_4f1c9a0b2d7e6c5a3b18", name: "Acme Docs", slug: "acme-docs", created_at: "2026-11-23T09:30:00.000Z", plan: "pro" },
  },
  "GET /api-keys": { operationId: "listApiKeys", ok: "The workspace's keys, never their secrets." },
  "POST /api-keys": { operationId: "createApiKey", ok: "The key; the plaintext secret is in `key`, returned once and never stored (only its SHA-256 hash is kept)." },
  "DELETE /api-keys/{key_id}": { operationId: "revokeApiKey", ok: "Revoked; the key stops working at once (401)." },
  "POST /auth/signup": { operationId: "signUp", ok: "The account; a console session cookie is set and a verification email is sent." },
  "POST /auth/login": { operationId: "logIn", ok: "The account; a console session cookie is set." },
  "POST /auth/logout": { operationId: "logOut", ok: "The session has ended." },
  "POST /auth/verify": { operationId: "verifyEmail", ok: "The email address is verified." },
  "POST /auth/resend-verification": { operationId: "resendVerification", ok: "A fresh verification email is on its way." },
  "POST /auth/forgot-password": { operationId: "forgotPassword", ok: "Accepted, whether or not the address has an account (no account enumeration)." },
  "POST /auth/reset-password": { operationId: "resetPassword", ok: "The password is changed and every session of the user has ended." },
  "DELETE /auth/workspace": { operationId: "deleteWorkspace", ok: "The workspace and everything in it are deleted." },
  "GET /collections": { operationId: "listCollections", ok: "Every collection of the workspace." },
  "POST /collections": { operationId: "createCollection", ok: "The new collection." },
  "GET /collections/{collection_id}": { operationId: "getCollection", ok: "The collection with its counts." },
  "PATCH /collections/{collection_id}": {
    operationId: "updateCollection",
    ok: "The updated collection.",
    description:
      "Partial update: only fields present change. `data_source_ids`, when present, replaces the whole set of sources. A new `language` queues the collection's documents for indexing again (the answer's `reindex` counts them); a data source shared with a collection of another language answers 409.",
  },
  "DELETE /collections/{collection_id}": { operationId: "deleteCollection", ok: "Deleted; its sources and documents stay." },
  "GET /collections/{collection_id}/synonyms": { operationId: "getSynonyms", ok: "The collection's synonym groups and one-way mappings (empty lists when it has none)." },
  "PUT /collections/{collection_id}/synonyms": {
    operationId: "putSynonyms",
    ok: "The synonyms now in use; the next search applies them.",
    description:
      "Replaces the collection's synonyms (kept as its `settings.synonyms`). Groups are multi-way, mappings one-way; phrases are allowed. " +
      "They widen the keyword half of search at query time: nothing is reindexed. An entry with no searchable word, or a group without two different terms, answers 422.",
  },
  "POST /collections/{collection_id}/adapt": {
    operationId: "adaptCollectionModel",
    ok: "The adaptation's held-out and 5-fold scores against the base model's, and whether it was applied (apply.detail says why or why not).",
    other: {
      "202": {
        description:
          "Adapted as a job (kind model, or background: true): the queued adaptation job; the Location header names GET /collections/{collection_id}/adaptations/{adaptation_id}, which shows its progress and, once completed, the same answer as 200.",
      },
    },
  },
  "GET /collections/{collection_id}/adaptations": {
    operationId: "listCollectionAdaptations",
    ok: "The collection's adaptation jobs, newest first (the 50 newest), each with its status, progress and answer.",
  },
  "GET /collections/{collection_id}/adaptations/{adaptation_id}": {
    operationId: "getCollectionAdaptation",
    ok: "The adaptation job: status, progress (phase, folds of the cross-validation done) and, once completed, the adaptation's answer in `result`.",
  },
  "POST /collections/{collection_id}/adaptations/{adaptation_id}/cancel": {
    operationId: "cancelCollectionAdaptation",
    ok: "The adaptation, now cancelled; the collection is unchanged.",
  },
  "GET /collections/{collection_id}/suggest": {
    operationId: "suggest",
    ok: "Popular queries that begin with `q`, then completions of its last word, best first (empty when nothing matches).",
    description:
      "For a search box, on every keystroke: completes the last word of `q` from the words of the collection's titles, headings and text " +
      "(through its keyword index), keeping what was typed before it. In front of those come the collection's popular queries that begin with `q` " +
      "(compared lower case, spaces collapsed): queries of the last 30 days' API and agent searches (not the console's) that found results at least " +
      "3 times on at least 2 different days, the most found first, taking up to half of `limit`. None while the workspace's search logging is off. " +
      "Not counted against the query quota; a key with the search scope may call it.",
  },
  "PUT /collections/{collection_id}/data-sources/{data_source_id}": { operationId: "attachDataSource", ok: "The collection with the source attached." },
  "DELETE /collections/{collection_id}/data-sources/{data_source_id}": { operationId: "detachDataSource", ok: "Detached; the source's documents stay indexed for other collections." },
  "GET /data-sources": { operationId: "listDataSources", ok: "The workspace's data sources, or those of one collection." },
  "POST /data-sources": { operationId: "createDataSource", ok: "The new data source." },
  "GET /data-sources/{data_source_id}": { operationId: "getDataSource", ok: "The data source with indexed and total counts." },
  "DELETE /data-sources/{data_source_id}": { operationId: "deleteDataSource", ok: "Deleted with every document in it." },
  "POST /data-sources/{data_source_id}/reindex": { operationId: "reindexDataSource", ok: "Re-indexing is queued; search keeps answering from the old index meanwhile." },
  "POST /reindex": { operationId: "reindexWorkspace", ok: "Re-indexing of the whole workspace is queued." },
  "GET /documents": { operationId: "listDocuments", ok: "The 200 most recent documents, optionally of one collection or data source." },
  "POST /documents/upload": {
    operationId: "uploadDocuments",
    ok: "Accepted: one document per file, status `queued` (or `failed` with the reason for a file that cannot be indexed); indexing continues in the background.",
    description: "Multipart form with `data_source_id` and one or more `files`. A file with the same name as one already in the source replaces it.",
  },
  "GET /documents/{document_id}": { operationId: "getDocument", ok: "The document and its indexing status." },
  "DELETE /documents/{document_id}": { operationId: "deleteDocument", ok: "Deleted with its stored file and index entries." },
  "GET /documents/{document_id}/chunks": { operationId: "listDocumentChunks", ok: "The document's indexed chunks in order (`limit`, default 20)." },
  "POST /search": { operationId: "search", ok: "The best hits, highest score first.", description: "Hybrid retrieval (BM25 + embeddings) over one collection, for human-facing results: snippets with highlights, one hit per document by default." },
  "POST /retrieve": {
    operationId: "retrieve",
    ok: "Contexts with citation numbers, the cited documents and a token estimate; `text` holds the ready-to-paste block when `format` is `text`.",
    description: "For language-model consumers: full chunk text, neighbouring chunks on request (`context_window`), citations numbered per document, trimmed to `max_tokens`.",
  },
  "POST /crawl/check": { operationId: "checkSite", ok: "What a crawl would find (robots.txt, sitemaps, llms.txt, JavaScript need) and suggested limits; nothing is indexed." },
  "POST /crawl": { operationId: "startCrawl", ok: "The crawl job, queued." },
  "PUT /data-sources/{data_source_id}/schedule": { operationId: "setSourceSchedule", ok: "The schedule with its next run (UTC)." },
  "GET /data-sources/{data_source_id}/schedule": { operationId: "getSourceSchedule", ok: "The schedule with its next and last run." },
  "DELETE /data-sources/{data_source_id}/schedule": { operationId: "deleteSourceSchedule", ok: "Removed; the source syncs only when asked." },
  "POST /data-sources/{data_source_id}/sync": {
    operationId: "syncSource",
    ok: "The crawl job, queued with the source's saved settings; for a git source, its sync job (a crawl job of the source, with git_commit once it ends).",
    description:
      "A website source is crawled again with its saved settings. A git source fetches its branch; the first sync indexes every wanted file, each later one only the files " +
      "`git diff` says changed since the last completed sync's commit, and deletes the documents of removed files. The job's pages_new, pages_changed and pages_removed count files.",
  },
  "POST /webhooks": { operationId: "createWebhook", ok: "The endpoint, with its signing secret (shown only here)." },
  "GET /webhooks": { operationId: "listWebhooks", ok: "The workspace's webhook endpoints." },
  "GET /webhooks/{webhook_id}": { operationId: "getWebhook", ok: "The webhook endpoint." },
  "DELETE /webhooks/{webhook_id}": { operationId: "deleteWebhook", ok: "Deleted; nothing more is delivered to it." },
  "GET /webhooks/{webhook_id}/deliveries": { operationId: "listWebhookDeliveries", ok: "Its most recent deliveries with their status and response code." },
  "POST /webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": { operationId: "redeliverWebhook", ok: "The delivery, pending again." },
  "GET /crawl": { operationId: "listCrawls", ok: "The 200 most recent crawl jobs." },
  "GET /crawl/{job_id}": { operationId: "getCrawl", ok: "The crawl job with its progress." },
  "GET /crawl/{job_id}/pages": { operationId: "listCrawlPages", ok: "Pages of the job (failed ones with the reason); the next page is in the Link header." },
  "POST /crawl/{job_id}/cancel": { operationId: "cancelCrawl", ok: "The cancelled job; pages already indexed are kept." },
  "POST /crawl/{job_id}/retry": { operationId: "retryCrawl", ok: "The job, queued again; pages already indexed are skipped." },
  "POST /benchmarks": { operationId: "createBenchmarkSuite", ok: "The new suite with its cases." },
  "GET /benchmarks": { operationId: "listBenchmarkSuites", ok: "Every suite with its latest scores." },
  "GET /benchmarks/{suite_id}": { operationId: "getBenchmarkSuite", ok: "The suite with its cases and runs (newest first)." },
  "GET /benchmarks/{suite_id}/runs": { operationId: "listBenchmarkRuns", ok: "The suite's runs with their per-case results, newest first; the next page is in the Link header." },
  "DELETE /benchmarks/{suite_id}": { operationId: "deleteBenchmarkSuite", ok: "Deleted with its cases and runs." },
  "POST /benchmarks/{suite_id}/run": { operationId: "runBenchmarkSuite", ok: "The finished run with nDCG@10, recall@10 and MRR; every case counts as a query." },
  "POST /benchmarks/{suite_id}/tune": {
    operationId: "tuneBenchmarkSuite",
    ok: "The best setting found, with its metrics and the current setting's on the tuning and held-out cases, and whether it was applied.",
    other: {
      "202": {
        description: "Tuned as a job (a suite of more than 100 cases, or background: true): the queued tuning job; the Location header names GET /benchmarks/{suite_id}/tunings/{tuning_id}, which shows its progress and, once completed, the same answer as 200.",
      },
    },
  },
  "GET /benchmarks/{suite_id}/tunings": { operationId: "listBenchmarkTunings", ok: "The suite's tuning jobs, newest first (the 50 newest), each with its status, progress and answer." },
  "GET /benchmarks/{suite_id}/tunings/{tuning_id}": {
    operationId: "getBenchmarkTuning",
    ok: "The tuning job: status, progress (cases whose candidate lists are fetched, of all) and, once completed, the tuning's answer in `result`.",
  },
  "POST /benchmarks/{suite_id}/tunings/{tuning_id}/cancel": { operationId: "cancelBenchmarkTuning", ok: "The tuning, now cancelled; the collection's settings are unchanged." },
  "GET /industry-benchmarks": { operationId: "listIndustryBenchmarks", ok: "Public question sets that can be loaded into a collection and a suite." },
  "POST /industry-benchmarks/{name}/import": { operationId: "importIndustryBenchmark", ok: "The import is under way; the suite can run once the documents are indexed." },
  ...ANALYTICS_OPERATIONS,
};
