// POST /search and POST /retrieve: resolve the collection inside the tenant, count the query
// against the plan, rank with the hybrid engine, then shape hits (snippets) or contexts
// (citations, token budget).
//
// The operations are named functions taking their dependencies: search-requests.ts (collection,
// ranking, search, retrieve), search-model.ts (shared shapes, collection settings). createSearchService
// binds them to one set of dependencies for the runtime.
import type { LexicalWeights } from "../../search/lexical/types.js";
import type { EngineSettings, RetrievalMode } from "../../search/engine.js";
import type { Principal } from "../auth/auth.js";
import { searchDeps, settingsFor, type CollectionScope, type RetrieveRequest, type SearchRequest, type SearchServiceDeps } from "./search-types.js";
import { candidatesIn, collectionOf, rankIn, retrieveContexts, searchChunks } from "./search-requests.js";
import type { SearchOrigin } from "../../store/analytics-types.js";

/** How a search is called: a forced mode and no quota count (bench), and where it came from (the search log). */
export interface SearchCallOptions {
  mode?: RetrievalMode;
  countQuery?: boolean;
  origin?: SearchOrigin;
}
/** An answer with the id of its search-log event (analytics-search.ts; null when not logged). */
type Logged<T> = Promise<Awaited<T> & { search_id?: string | null }>;

/** The /retrieve cutoff (documented in the API schema). */
export { RETRIEVE_CUTOFF } from "../../search/calibration.js";
export {
  collectionSettingsOf,
  settingsFor,
  type CollectionScope,
  type RetrieveRequest,
  type SearchRequest,
  type SearchServiceDeps,
} from "./search-types.js";

export function createSearchService(serviceDeps: SearchServiceDeps) {
  // resolved once: the deployment's engine defaults
  const deps = searchDeps(serviceDeps);
  return {
    /** ranking without quota or shaping: for benchmark runs and the bench command */
    rank: (p: Principal, c: CollectionScope, query: string, mode: RetrievalMode = "hybrid") => rankIn(deps, p, c, query, mode),
    collection: (p: Principal, id: string) => collectionOf(deps, p, id),
    /** the engine setting a collection searches with */
    settingsOf: (c: CollectionScope): EngineSettings => settingsFor(deps.settings, c.settings, c.language),
    /** candidate lists for tuning (one embedding per query; see search/tuning.ts) */
    candidates: (p: Principal, c: CollectionScope, query: string, opts: { depth: number; lexicalWeights: LexicalWeights[] }) => candidatesIn(deps, p, c, query, opts),
    search: (p: Principal, req: SearchRequest, opts: SearchCallOptions = {}): Logged<ReturnType<typeof searchChunks>> => searchChunks(deps, p, req, opts),
    retrieve: (p: Principal, req: RetrieveRequest, _opts: Pick<SearchCallOptions, "origin"> = {}): Logged<ReturnType<typeof retrieveContexts>> => retrieveContexts(deps, p, req),
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
