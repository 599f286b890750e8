// The bench's loaded deployment as the measurements see it (load.ts makes it).
import type { Runtime } from "../../runtime.js";
import { keylessPrincipal, type Principal } from "../../services/auth/auth.js";
import type { TenantRow } from "../../store/types.js";
import type { BeirQrels } from "../beir/beir-files.js";

export interface LoadStats {
  documents: number;
  chunks: number;
  /** rows + stored twins (before indexing) */
  prepareMs: number;
  /** chunk + embed + write */
  indexMs: number;
  embedded: boolean;
  reused: boolean;
}

export interface BenchContext {
  rt: Runtime;
  principal: Principal;
  tenant: TenantRow;
  collectionId: string;
  sourceId: string;
  suiteId: string | null;
  dataset: string;
  title: string;
  split: string;
  /** every query of the data set (the HTTP test draws unseen ones from here) */
  queries: Map<string, string>;
  /** the evaluated queries, in qrels order */
  queryIds: string[];
  qrels: BeirQrels;
  load: LoadStats;
  dataDir: string;
  close(): Promise<void>;
}

/** The operator acting inside a tenant (CLI and bench run in-process, without HTTP). */
export function operatorPrincipal(tenant: TenantRow): Principal {
  return keylessPrincipal(tenant, ["admin"]);
}
