// The composition root: builds the store, the services and the background machinery from the
// configuration, and tears them down in reverse order. http/ and cli.ts only talk to a Runtime.
import path from "node:path";
import type { Logger } from "pino";
import { createLogger } from "./logger.js";
import { createMetrics, instrumentEmbedder, instrumentEngine, type Metrics } from "./prometheus.js";
import { observedIngestHandler } from "./job-events.js";
import type { Config } from "./config.js";
import type { Store } from "./store/types.js";
import { openStore } from "./store/open.js";
import { createAuthService } from "./services/auth/auth.js";
import { createApiKeyService } from "./services/auth/api-keys.js";
import { createKeyCache, type KeyCache } from "./services/auth/key-cache.js";
import { createTenantService } from "./services/tenants/tenants.js";
import { createAccountService, type UserOut } from "./services/accounts/accounts.js";
import { createMailer, type Mailer } from "./services/accounts/mailer.js";
import { createQuotaService } from "./services/tenants/quotas.js";
import { loadProfiles } from "./embed/profiles.js";
import { chooseActiveProfile } from "./embed/choose-profile.js";
import type { EmbeddingProfile, EmbedderStatus } from "./embed/types.js";
import type { CheckResult, VectorHealth } from "./services/system.js";
import type { FileStore } from "./store/files.js";
import { openFileStore } from "./store/open-files.js";
import { createCollectionService, type CollectionService } from "./services/collections/collections.js";
import { createSynonymService, type SynonymService } from "./services/collections/synonyms.js";
import { createSourceService, type SourceService } from "./services/collections/sources.js";
import { createDocumentService, type DocumentService } from "./services/documents/documents.js";
import { createIngestService, type IngestService } from "./services/ingest/ingest.js";
import { createBackfillScheduler, type BackfillScheduler } from "./services/ingest/backfill.js";
import { recoverStagedFiles } from "./services/documents/acceptance.js";
import { createAuditService, type AuditService } from "./services/tenants/audit.js";
import { createSearchService, type SearchService } from "./services/search/search.js";
import { popularQueries } from "./services/analytics/popular-queries.js";
import {
  ADAPT_JOB_KIND,
  ADAPT_RUN_JOB_KIND,
  beirDataDir,
  createAdapter,
  createBeirImporter,
  createBenchmarkService,
  createIndustryBenchmarkService,
  TUNE_JOB_KIND,
  type Adapter,
  type BenchmarkService,
  type IndustryBenchmarkService,
} from "./evaluation/index.js";
import { createAnalyticsService, type AnalyticsService } from "./services/analytics/analytics.js";
import { createSearchLog } from "./services/analytics/analytics-log.js";
import { loggedSearch } from "./services/analytics/analytics-search.js";
import { createQueueBackend, type JobQueue, type QueueBackend, type RecoveryHook } from "./jobs/index.js";
import { CRAWL_JOB_KIND, createCrawlService, type CrawlService } from "./services/crawl/crawls.js";
import { createEngine, type Engine } from "./search/engine.js";
import { createEmbedder, staticBaseOf } from "./embed/index.js";
import { createQueryModels, type QueryModels } from "./services/search/query-models.js";
import { createPassageModels } from "./services/ingest/passage-models.js";
import type { Embedder } from "./embed/types.js";
import { SUPPORTED_FILE_TYPES } from "./ingest/sniff.js";
import { MAX_PAGE_LIMIT, PAGE_SIZE_LIMIT_BYTES } from "./crawl/limits.js";
import { assembleSchedules, assembleWebhooks, emitDocumentEvent, withIndexedHook, type IndexedHook } from "./runtime-webhooks.js";
import type { ScheduleService } from "./services/crawl/schedules.js";
import type { WebhookService } from "./services/webhooks/webhooks.js";


export interface Runtime {
  config: Config;
  log: Logger;
  store: Store;
  profiles: EmbeddingProfile[];
  activeProfile: EmbeddingProfile;
  auth: ReturnType<typeof createAuthService>;
  apiKeys: ReturnType<typeof createApiKeyService>;
  tenants: ReturnType<typeof createTenantService>;
  accounts: ReturnType<typeof createAccountService>;
  /** plan limits: consumeQueries() before running queries; see services/quotas.ts */
  quotas: ReturnType<typeof createQuotaService>;
  mailer: Mailer;
  files: FileStore;
  collections: CollectionService;
  /** a collection's synonyms (GET/PUT /collections/{id}/synonyms) */
  synonyms: SynonymService;
  sources: SourceService;
  documents: DocumentService;
  ingest: IngestService;
  backfill: BackfillScheduler;
  /** searches as callers make them: counted in /metrics and logged for analytics (benchmark runs use an unlogged one) */
  search: SearchService;
  /** the search log's reports, feedback and switch (issue 29) */
  analytics: AnalyticsService;
  /** benchmark suites and runs */
  benchmarks: BenchmarkService;
  /** per-collection adaptation of the query model (POST /collections/{id}/adapt, issue 27 item 4) */
  adapter: Adapter;
  /** public BEIR question sets: catalogue and import */
  industryBenchmarks: IndustryBenchmarkService;
  engine: Engine;
  /** the audit trail (GET /audit-log) */
  audit: AuditService;
  /** the ingest jobs' queue */
  queue: JobQueue;
  /** website crawls: site check, crawl jobs and their handler */
  crawls: CrawlService;
  /** the crawl jobs' own queue instance, so long crawls never take the ingest workers */
  crawlQueue: JobQueue;
  /** the tuning jobs' own queue instance (POST /benchmarks/{id}/tune in the background) */
  tuneQueue: JobQueue;
  /** webhook endpoints, events and their deliveries */
  webhooks: WebhookService;
  /** the webhook deliveries' own queue instance */
  webhookQueue: JobQueue;
  /** schedules of crawled sources, and sync now */
  schedules: ScheduleService;
  /** null when the active profile cannot be served at all (see createEmbedder) */
  embedder: Embedder | null;
  /**
   * Removes what ON DELETE CASCADE cannot reach (full-text and vector index entries, stored
   * files) of a tenant; workspace deletion calls it before deleting the tenant row.
   */
  purgeTenantContent(tenantId: string): Promise<void>;
  /** limits reported by GET /capabilities */
  limits: { pageSizeLimitBytes: number; maxPageLimit: number; fileTypes: string[] };
  embedderStatus(): EmbedderStatus;
  /** the active model's own version, null when unknown */
  embedderVersion(): string | null;
  /** queue, index and model checks of GET /health (database is checked by the caller) */
  extraHealthChecks(): Promise<Record<string, CheckResult>>;
  /** the vector backlog and the approximate index behind vector search, for GET /health */
  vectorHealth(): Promise<VectorHealth>;
  /** the User record of MeOut */
  userOut(userId: string): Promise<UserOut | null>;
  /** Prometheus metrics of this process (GET /metrics) */
  metrics: Metrics;
  /** false in an API-only process (`quarry serve --no-worker`): jobs wait for a `quarry worker` */
  workers: boolean;
  /** stops everything; says what it left behind for the next start */
  close(): Promise<ShutdownSummary>;
}

export interface ShutdownSummary {
  /** jobs still queued or left running (requeued at the next start), null when unknown */
  jobsLeft: number | null;
  /** crawls that were running and go back to queued */
  crawlsInterrupted: number;
}

/** Every queue, once the tune queue (built with the services, its handler) exists. */
type Queues = Jobs & { tuneQueue: JobQueue };

export interface RuntimeOptions {
  log?: Logger;
  /** run the ingest and crawl workers in this process (default true) */
  workers?: boolean;
}

/**
 * Recovery's jobs wait this long before they run: another process may be between committing a
 * document and placing its file (its own enqueue then finds this job queued and adds none).
 */
const INGEST_RECOVERY_DELAY_MS = 5_000;

/** Ingest recovery: every document left queued/processing has a live ingest job (a crash between commit and enqueue). */
function ingestRecovery(store: Store): RecoveryHook {
  return async (queue) => {
    const docs = await store.content.documentsAwaitingIngest(new Date(), 10_000);
    let n = 0;
    for (const d of docs) {
      if (await queue.enqueue({ tenant_id: d.tenant_id, kind: "ingest", subject: d.id, unlessLive: true, delayMs: INGEST_RECOVERY_DELAY_MS })) n++;
    }
    return n;
  };
}

/** what every later step builds on: configuration, logging, the store and the embedding model */
interface Base {
  config: Config;
  log: Logger;
  workers: boolean;
  metrics: Metrics;
  store: Store;
  profiles: EmbeddingProfile[];
  activeProfile: EmbeddingProfile;
  mailer: Mailer;
  files: FileStore;
  audit: AuditService;
  keyCache: KeyCache;
  purgeTenantContent(tenantId: string): Promise<void>;
  embedder: Embedder | null;
  quotas: ReturnType<typeof createQuotaService>;
  /** collections' adapted models (quarry-static only): their queries' and, for a whole-model adaptation, their chunks' */
  models: QueryModels;
}

/** the job queues and the services that run as their handlers */
interface Jobs {
  ingest: IngestService;
  queues: QueueBackend;
  queue: JobQueue;
  crawls: CrawlService;
  crawlQueue: JobQueue;
  backfill: BackfillScheduler;
  webhooks: WebhookService;
  webhookQueue: JobQueue;
  scheduler: ReturnType<typeof assembleSchedules>;
  /** told when a source's documents were indexed (the adapter's automatic start is set on it) */
  indexed: IndexedHook;
}

function openEmbedder(config: Config, profile: EmbeddingProfile, metrics: Metrics, log: Logger): Embedder | null {
  try {
    return instrumentEmbedder(
      createEmbedder(profile, {
        modelsDir: config.modelsDir,
        allowDownload: config.allowModelDownload,
        logger: log,
        poolSize: config.embedWorkers,
      }),
      metrics,
    );
  } catch (err) {
    log.error({ err }, "the embedding profile cannot be served; search answers lexically");
    return null;
  }
}

async function assembleBase(config: Config, opts: RuntimeOptions): Promise<Base> {
  const log = opts.log ?? createLogger({ level: config.logLevel, format: config.logFormat });
  const metrics = createMetrics();
  const store = await openStore(config, {
    vectorIndex: config.vectorIndex,
    vectorQuantization: config.vectorQuantization,
    vectorEfSearch: config.vectorEfSearch,
    onError: (err) => log.error({ err }, "vector index maintenance failed; affected sources are searched exactly"),
  });
  const profiles = loadProfiles({ profilesFile: config.embeddingProfilesFile });
  const choice = await chooseActiveProfile(profiles, config.embeddingProfile, { embeddedIndex: () => store.content.embeddedIndex() });
  const activeProfile = choice.profile;
  if (config.embeddingProfile === null) log.info({ profile: activeProfile.name }, `embedding profile: ${choice.reason}`);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: path.join(config.dataDir, "outbox"), log });
  const files = await openFileStore(config, store);
  log.info({ files: files.describe }, "originals of documents are kept in %s", files.describe);
  const audit = createAuditService({ store, log, retentionDays: config.auditRetentionDays });
  // Index entries go with the tenant in the store's own deletion (accounts.deleteTenant).
  const purgeTenantContent = async (tenantId: string): Promise<void> => {
    await files.removeTenant(tenantId);
  };
  const embedder = openEmbedder(config, activeProfile, metrics, log);
  await store.content.ensureVectorIndex(activeProfile.index_name!, activeProfile.dimension);
  const quotas = createQuotaService({ store });
  const workers = opts.workers ?? true;
  const keyCache = createKeyCache({ redisUrl: config.redisUrl, prefix: config.queuePrefix, log });
  const models = createQueryModels({ files, base: () => staticBaseOf(embedder), log });
  return { config, log, workers, metrics, store, profiles, activeProfile, mailer, files, audit, keyCache, purgeTenantContent, embedder, quotas, models };
}

async function assembleJobs(b: Base): Promise<Jobs> {
  const { config, store, files, log, metrics, embedder } = b;
  const passageModels = createPassageModels({ content: store.content, models: b.models });
  const ingest = createIngestService({ store, files, profile: b.activeProfile, embedder, log, passageModels });
  const queues = await createQueueBackend({
    redisUrl: config.redisUrl,
    prefix: config.queuePrefix,
    tenantConcurrency: config.queueTenantConcurrency,
    lockMs: config.queueLockMs,
    store: store.content,
    log,
  });
  const { webhooks, webhookQueue } = assembleWebhooks(queues, b);
  const indexed: IndexedHook = {};
  const events = withIndexedHook(webhooks, indexed);
  const queue = queues.create({
    name: "ingest",
    handlers: {
      ingest: observedIngestHandler(
        async (job) => {
          await ingest.handle(job);
          backfill.request(); // no-op unless chunks were committed without vectors
          await emitDocumentEvent(events, store, job);
        },
        { content: store.content, log, metrics },
      ),
    },
    concurrency: config.ingestWorkers,
    onGiveUp: async (job, error) => {
      await ingest.giveUp(job, error);
      await emitDocumentEvent(events, store, job);
    },
    recovery: [ingestRecovery(store)],
  });
  const crawls = createCrawlService({
    store,
    files,
    log,
    config: { allowPrivateNetworks: config.crawlAllowPrivateNetworks, renderJs: config.crawlRenderJs, removeAfterMisses: config.crawlRemoveAfterMisses },
    queue: () => crawlQueue,
    ingestQueue: () => queue,
    gitCacheDir: path.join(config.dataDir, "git"),
    events,
    observe: {
      page: (outcome) => metrics.crawlPages.inc({ outcome }),
      finished: (status) => metrics.crawls.inc({ status }),
    },
  });
  // crawls have a queue of their own so long crawls never take the ingest workers
  const crawlQueue = queues.create({
    name: "crawl",
    handlers: { [CRAWL_JOB_KIND]: (job) => crawls.handle(job) },
    concurrency: 2,
    onGiveUp: (job, error) => crawls.giveUp(job, error),
    recovery: [crawls.recover],
  });
  const backfill = createBackfillScheduler({
    ingest,
    embedder,
    log,
    ingestPending: async () => (await queue.pending()) > 0,
  });
  const scheduler = assembleSchedules(b, crawls);
  return { ingest, queues, queue, crawls, crawlQueue, backfill, webhooks, webhookQueue, scheduler, indexed };
}

function assembleEngine(b: Base, j: Jobs): Engine {
  const { store, activeProfile, embedder, metrics, log } = b;
  // a collection's adapted model, when it has one and the active model is quarry-static
  const engine = instrumentEngine(createEngine({ content: store.content, profile: activeProfile, embedder, adaptedQuery: b.models.embedQuery }), metrics);
  void embedder?.whenReady().then((ok) => {
    if (ok) {
      if (b.workers) j.backfill.request();
    } else log.warn({ detail: embedder?.status().detail }, "embedding model unavailable: searching lexically");
  });
  return engine;
}

type Services = Pick<
  Runtime,
  "accounts" | "auth" | "search" | "analytics" | "collections" | "synonyms" | "sources" | "benchmarks" | "adapter" | "industryBenchmarks" | "apiKeys" | "tenants" | "documents" | "tuneQueue"
>;

function setMetricSources(b: Base, q: Queues): void {
  const { store, activeProfile, metrics } = b;
  metrics.setSources({
    pendingJobs: async () => (await q.queue.pending()) + (await q.crawlQueue.pending()) + (await q.tuneQueue.pending()),
    embeddingBacklog: () => store.content.countUnembedded(activeProfile.index_name!),
    tenants: async () => (await store.tenants.list()).length,
  });
}

/**
 * Tunings have a queue of their own with one worker: a tuning of hundreds of cases holds its
 * worker for tens of seconds, which on the crawl queue (two workers) would hold crawls back, and
 * one at a time keeps the embedding model free for searches. Its handler is the benchmark service,
 * which needs the search service, so it is built here rather than with the other queues.
 */
function assembleBenchmarks(b: Base, j: Jobs, search: SearchService): { benchmarks: BenchmarkService; adapter: Adapter; tuneQueue: JobQueue } {
  let tuneQueue: JobQueue | null = null;
  // adaptations run on the tune queue too: one at a time, beside tunings, never in the ingest workers
  const adapter = createAdapter({
    store: b.store,
    files: b.files,
    baseModel: () => staticBaseOf(b.embedder),
    vectorsStale: () => j.backfill.request(),
    queue: () => tuneQueue!,
    events: j.webhooks,
    log: b.log,
    autoMinDocuments: b.config.adaptAutoMinDocuments,
    autoMinChunks: b.config.adaptAutoMinChunks,
    checkEveryMs: b.config.adaptCheckMs,
  });
  j.indexed.sourceIndexed = (tenantId, sourceId) => void adapter.sourceChanged(tenantId, sourceId);
  const benchmarks = createBenchmarkService({ store: b.store, search, quotas: b.quotas, log: b.log, tuneQueue: () => tuneQueue!, events: j.webhooks, adapt: adapter.adaptIn });
  tuneQueue = j.queues.create({
    name: "tune",
    handlers: { [TUNE_JOB_KIND]: (job) => benchmarks.handleTune(job), [ADAPT_JOB_KIND]: (job) => adapter.handle(job), [ADAPT_RUN_JOB_KIND]: (job) => adapter.handleRun(job) },
    concurrency: 1,
    onGiveUp: async (job, error) => {
      await benchmarks.giveUpTune(job, error);
      await adapter.giveUp(job, error);
    },
    recovery: [benchmarks.recoverTunings, adapter.recover],
  });
  return { benchmarks, adapter, tuneQueue };
}

function assembleServices(b: Base, j: Jobs, engine: Engine): Services {
  const { config, store, files, log, audit, quotas } = b;
  const accounts = createAccountService({
    store,
    mailer: b.mailer,
    log,
    config: {
      publicUrl: config.publicUrl,
      requireEmailVerification: config.requireEmailVerification,
      defaultPlan: config.defaultPlan,
      sessionTtlDays: config.sessionTtlDays,
    },
    purgeTenantContent: b.purgeTenantContent,
    audit,
  });
  const auth = createAuthService({
    store,
    platformApiKey: config.platformApiKey,
    sessions: accounts.resolveSession,
    requireEmailVerification: config.requireEmailVerification,
    keyCache: b.keyCache,
  });
  const plainSearch = createSearchService({ store, engine, quotas });
  const searchLog = createSearchLog({
    store,
    log,
    flushMs: config.analyticsFlushMs,
    lowScore: config.analyticsLowScore,
    counters: { failures: b.metrics.searchLogFailures, dropped: b.metrics.searchLogDropped },
  });
  const counters = { zeroResults: b.metrics.searchZeroResults, lowScore: b.metrics.searchLowScore };
  const search = loggedSearch(plainSearch, { log: searchLog, lowScore: config.analyticsLowScore, counters, popular: popularQueries(store.analytics) });
  const documents = createDocumentService({ store, files, profileName: b.activeProfile.name, queue: j.queue, log, audit });
  const synonyms = createSynonymService({ store });
  const analytics = createAnalyticsService({ store, log: searchLog, synonyms, retentionDays: config.analyticsRetentionDays, lowScore: config.analyticsLowScore, flushMs: config.analyticsFlushMs });
  const collections = createCollectionService({ store, audit, files, reindex: (p, sourceId) => documents.reindex(p, sourceId), vectorsStale: () => j.backfill.request() });
  const sources = createSourceService({ store, files, isSyncing: (id) => j.crawls.isSyncing(id), audit, allowLocalRepositories: config.crawlAllowPrivateNetworks, forgetSource: (t, id) => j.crawls.forgetSource(t, id) });
  const { benchmarks, adapter, tuneQueue } = assembleBenchmarks(b, j, plainSearch);
  const industryBenchmarks = createIndustryBenchmarkService({
    dataDir: beirDataDir(config.beirDataDir, config.dataDir),
    importer: createBeirImporter({
      store,
      files,
      ingest: j.ingest,
      collections,
      sources,
      benchmarks,
      log,
      onUnembedded: () => j.backfill.request(),
    }),
  });
  const apiKeys = createApiKeyService({ store, audit, keyCache: b.keyCache });
  const tenants = createTenantService({ store, defaultPlan: config.defaultPlan, audit });
  return { accounts, auth, search, analytics, collections, synonyms, sources, benchmarks, adapter, industryBenchmarks, apiKeys, tenants, documents, tuneQueue };
}

/** "default: quarry-static-v1 2026-11-27.3f2a9c01 (ready)": the profile, the model and its version,
 * and what runs it where there is a choice ("... 0.2.0 on onnxruntime (ready)") */
function modelDetail(profile: EmbeddingProfile, state: string, embedder: Embedder | null): string {
  const version = embedder?.modelVersion?.();
  const runtime = embedder?.runtime?.();
  return `${profile.name}: ${profile.model}${version ? ` ${version}` : ""}${runtime ? ` on ${runtime}` : ""} (${state})`;
}

async function extraHealthChecks(b: Base, j: Queues): Promise<Record<string, CheckResult>> {
  const { store, activeProfile } = b;
  const { queue, crawlQueue, tuneQueue } = j;
  const model = b.embedder?.status() ?? { state: "unavailable", detail: null };
  const pending = await Promise.all([queue.pending(), crawlQueue.pending(), tuneQueue.pending()]).catch(() => null);
  const here = b.workers
    ? `${queue.workers()} ingest, ${crawlQueue.workers()} crawl and ${tuneQueue.workers()} tuning workers in this process`
    : "no workers in this process: jobs run in separate worker processes (quarry worker)";
  return {
    queue: !queue.available()
      ? { status: "down", detail: `the job queue is not running (${queue.backend})` }
      : !crawlQueue.available()
        ? { status: "down", detail: "the crawl queue is not running; crawls cannot start" }
        : !tuneQueue.available()
          ? { status: "down", detail: "the tuning queue is not running; tunings of large suites cannot start" }
          : { status: "up", detail: `${queue.backend}, ${pending ? pending[0] + pending[1] + pending[2] : "?"} jobs pending; ${here}` },
    index: await Promise.all([store.content.countUnembedded(activeProfile.index_name!), store.content.vectorIndexStatus(activeProfile.index_name!)])
      .then(([n, v]) => ({ status: "up" as const, detail: `${store.kind} store: lexical (BM25) and vector (${v.kind}) indexes; ${n} chunks awaiting vectors` }))
      .catch((err: unknown) => ({ status: "down" as const, detail: err instanceof Error ? err.message : String(err) })),
    model: { status: model.state === "ready" ? "up" : "degraded", detail: model.detail ?? modelDetail(activeProfile, model.state, b.embedder) },
  };
}

async function closeRuntime(b: Base, j: Queues, s: Pick<Services, "industryBenchmarks" | "analytics">, auditPruner: NodeJS.Timeout | undefined): Promise<ShutdownSummary> {
  const { industryBenchmarks } = s;
  const { queue, crawlQueue, tuneQueue } = j;
  clearInterval(auditPruner);
  j.scheduler.stop();
  await industryBenchmarks.close();
  await j.backfill.stop();
  const crawlWorkersStopped = crawlQueue.stop(b.config.shutdownTimeoutMs); // stops claiming at once
  const crawlsInterrupted = await j.crawls.shutdown(); // running crawls go back to queued and resume at next start
  await crawlWorkersStopped;
  // a running tuning finishes, or (past the timeout) its job is taken over and starts over
  await Promise.all([queue.stop(b.config.shutdownTimeoutMs), tuneQueue.stop(b.config.shutdownTimeoutMs), j.webhookQueue.stop(b.config.shutdownTimeoutMs)]);
  const jobsLeft = await Promise.all([queue.pending(), crawlQueue.pending(), tuneQueue.pending(), j.webhookQueue.pending()])
    .then((left) => left.reduce((a, n) => a + n, 0))
    .catch(() => null);
  await queue.close();
  await crawlQueue.close();
  await tuneQueue.close();
  await j.webhookQueue.close();
  await j.queues.close();
  await b.embedder?.close();
  await b.mailer.close();
  await s.analytics.close(); // the HTTP front is closed: no search adds to the log any more
  await b.keyCache.close();
  await b.store.close();
  return { jobsLeft, crawlsInterrupted };
}

/** staged-file recovery, the audit pruner, then the queues; returns the pruner's timer */
async function startBackground(b: Base, j: Queues): Promise<NodeJS.Timeout> {
  const { log, audit } = b;
  await recoverStagedFiles({ content: b.store.content, files: b.files, log }); // before the queue requeues queued documents
  const pruneAudit = () => audit.prune().catch((err: unknown) => log.error({ err }, "could not prune the audit log"));
  await pruneAudit();
  const auditPruner = setInterval(pruneAudit, 86_400_000);
  auditPruner.unref();
  if (b.workers) {
    await j.queue.start(); // takes over ingest jobs left running by a dead process
    await j.crawlQueue.start();
    await j.tuneQueue.start();
    await j.webhookQueue.start();
    j.scheduler.start();
  } else {
    await j.queue.open();
    await j.crawlQueue.open();
    await j.tuneQueue.open();
    await j.webhookQueue.open();
  }
  return auditPruner;
}

export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const b = await assembleBase(config, opts);
  const j = await assembleJobs(b);
  const engine = assembleEngine(b, j);
  const services = assembleServices(b, j, engine);
  const q: Queues = { ...j, tuneQueue: services.tuneQueue };
  setMetricSources(b, q);
  const { store, activeProfile, embedder } = b;
  // set once the background work has started; close() clears it whenever it is called
  let auditPruner: NodeJS.Timeout | undefined;
  const rt: Runtime = {
    config,
    log: b.log,
    store,
    profiles: b.profiles,
    activeProfile,
    ...services,
    quotas: b.quotas,
    mailer: b.mailer,
    files: b.files,
    ingest: j.ingest,
    backfill: j.backfill,
    engine,
    audit: b.audit,
    queue: j.queue,
    crawls: j.crawls,
    crawlQueue: j.crawlQueue,
    webhooks: j.webhooks,
    webhookQueue: j.webhookQueue,
    schedules: j.scheduler.schedules,
    embedder,
    purgeTenantContent: b.purgeTenantContent,
    limits: { pageSizeLimitBytes: PAGE_SIZE_LIMIT_BYTES, maxPageLimit: MAX_PAGE_LIMIT, fileTypes: [...SUPPORTED_FILE_TYPES] },
    embedderStatus: () => embedder?.status() ?? { state: "unavailable", detail: "The active embedding profile cannot be served." },
    embedderVersion: () => embedder?.modelVersion?.() ?? null,
    extraHealthChecks: () => extraHealthChecks(b, q),
    async vectorHealth() {
      const index = activeProfile.index_name!;
      const [pending, status] = await Promise.all([store.content.countUnembedded(index), store.content.vectorIndexStatus(index)]);
      return { chunks_pending_vectors: pending, ...status };
    },
    userOut: (userId) => services.accounts.userOut(userId),
    metrics: b.metrics,
    workers: b.workers,
    close: () => closeRuntime(b, q, services, auditPruner),
  };
  auditPruner = await startBackground(b, q);
  await services.analytics.start((err) => b.log.error({ err }, "could not prune the search log"));
  return rt;
}
