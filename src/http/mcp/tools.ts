// Runs the agent tools of catalog.ts for one authenticated principal by calling the services (never
// HTTP). Every tool answers with text for the model plus the structured data behind it. Used by
// the MCP server and by POST /tool-calls, so both behave the same.
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { AuthService, Principal } from "../../services/auth/auth.js";
import type { CollectionService } from "../../services/collections/collections.js";
import type { SourceService } from "../../services/collections/sources.js";
import type { DocumentService } from "../../services/documents/documents.js";
import type { SearchService } from "../../services/search/search.js";
import type { CrawlService } from "../../services/crawl/crawls.js";
import { allows } from "../../services/auth/scopes.js";
import { ServiceError, ValidationError } from "../../services/errors.js";
import { TOOL_SPECS, toolSpec, type ToolSpec } from "./catalog.js";
import * as text from "./format.js";

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

export interface ToolOutcome {
  /** what the model reads */
  text: string;
  /** the same result as data (MCP structuredContent) */
  structured: Record<string, unknown> | null;
  /** the tool ran but could not do what was asked; `text` says what to change */
  isError: boolean;
}

/** The tool does not exist, or the key's scope does not reach it: refused before it runs. */
export class ToolRefused extends Error {
  constructor(
    message: string,
    public readonly reason: "unknown_tool" | "scope",
  ) {
    super(message);
  }
}

/** The services the tools call (a Runtime is one). */
export interface ToolServices {
  collections: CollectionService;
  sources: SourceService;
  documents: DocumentService;
  search: SearchService;
  crawls: Pick<CrawlService, "create">;
  auth: Pick<AuthService, "requireScope">;
}

type Args = Record<string, unknown>;
type Runner = (svc: ToolServices, p: Principal, args: Args) => Promise<Omit<ToolOutcome, "isError">>;

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>(TOOL_SPECS.map((t) => [t.name, ajv.compile(t.input)]));

/** Tools the principal may see and call. */
export const toolsFor = (p: Principal): ToolSpec[] => TOOL_SPECS.filter((t) => allows(p.scopes, t.scope));

/**
 * Strict-mode shapes make every field required and nullable, so models send `null` for "use the
 * default"; null means absent here.
 */
function dropNulls(args: unknown): Args {
  if (!args || typeof args !== "object" || Array.isArray(args)) return {};
  return Object.fromEntries(Object.entries(args as Args).filter(([, v]) => v !== null && v !== undefined));
}

const num = (v: unknown) => (typeof v === "number" ? v : undefined);

/** The search controls the tools take (catalog.ts): the filter arrives as JSON text. */
function controls(a: Args) {
  let filter: unknown;
  if (typeof a.filter === "string") {
    try {
      filter = JSON.parse(a.filter);
    } catch (err) {
      throw new ValidationError([{ type: "json_invalid", loc: ["filter"], msg: `filter is not valid JSON (${(err as Error).message}); send an object such as {"metadata.product": "cli"}`, input: a.filter }]);
    }
  }
  const ratio = num(a.semantic_ratio);
  return {
    ...(filter !== undefined ? { filter } : {}),
    ...(ratio !== undefined ? { hybrid: { semantic_ratio: ratio } } : {}),
    ...(typeof a.typo_tolerance === "boolean" ? { typo_tolerance: a.typo_tolerance } : {}),
  };
}
const str = (v: unknown) => (typeof v === "string" ? v : undefined);

const RUNNERS: Record<string, Runner> = {
  async list_collections(svc, p) {
    const collections = await svc.collections.list(p);
    return { text: text.collections(collections), structured: { collections } };
  },
  async search(svc, p, a) {
    const res = await svc.search.search(p, {
      collection_id: String(a.collection_id),
      query: String(a.query),
      top_k: num(a.top_k),
      min_score: num(a.min_score),
      collapse_documents: typeof a.collapse_documents === "boolean" ? a.collapse_documents : undefined,
      ...(Array.isArray(a.facets) ? { facets: a.facets.map(String) } : {}),
      ...controls(a),
    }, { origin: "mcp" });
    return { text: text.searchHits(res), structured: res };
  },
  async retrieve(svc, p, a) {
    const res = await svc.search.retrieve(p, {
      collection_id: String(a.collection_id),
      query: String(a.query),
      top_k: num(a.top_k),
      min_score: num(a.min_score),
      max_chunks_per_document: num(a.max_chunks_per_document),
      context_window: num(a.context_window),
      max_tokens: num(a.max_tokens) ?? null,
      format: "text",
      ...controls(a),
    }, { origin: "mcp" });
    return { text: text.retrieveText(res), structured: res };
  },
  async get_document(svc, p, a) {
    const id = String(a.document_id);
    const document = await svc.documents.get(p, id);
    const { total, chunks } = await svc.documents.chunks(p, id, num(a.max_chunks) ?? 10);
    return { text: text.documentText(document, chunks, total), structured: { document, total_chunks: total, chunks } };
  },
  async get_chunk(svc, p, a) {
    const res = await svc.documents.chunksAround(p, String(a.document_id), Number(a.position), num(a.context_window) ?? 0);
    return { text: text.documentText(res.document, res.chunks, res.document.chunk_count), structured: res };
  },
  async suggest(svc, p, a) {
    // the logged search service's suggest: popular queries of the collection in front of the word completions
    const res = await svc.search.suggest(p, String(a.collection_id), String(a.prefix), num(a.limit) ?? 5);
    return { text: text.suggestions(String(a.prefix), res.suggestions), structured: res };
  },
  async add_url(svc, p, a) {
    const job = await svc.crawls.create(p, {
      url: String(a.url),
      collection_id: str(a.collection_id) ?? null,
      max_depth: num(a.max_depth),
      page_limit: num(a.page_limit),
      include_paths: Array.isArray(a.include_paths) ? (a.include_paths as string[]) : undefined,
    });
    return { text: text.crawlStarted(job, str(a.collection_id)), structured: { ...job } };
  },
  async upload_text(svc, p, a) {
    const document = await uploadText(svc, p, {
      collectionId: String(a.collection_id),
      title: String(a.title),
      body: String(a.text),
      sourceId: str(a.data_source_id),
    });
    return { text: text.uploaded(document), structured: { ...document } };
  },
};

export const AGENT_UPLOAD_SOURCE = "Agent uploads";

/** Stores text as a Markdown file in an upload source of the collection and queues it. */
async function uploadText(svc: ToolServices, p: Principal, a: { collectionId: string; title: string; body: string; sourceId?: string }) {
  const collection = await svc.collections.get(p, a.collectionId);
  let sourceId = a.sourceId;
  if (!sourceId) {
    const existing = (await svc.sources.list(p, collection.id)).find((s) => s.source_type === "upload" && s.name === AGENT_UPLOAD_SOURCE);
    sourceId = existing?.id ?? (await svc.sources.create(p, { name: AGENT_UPLOAD_SOURCE, source_type: "upload", collection_ids: [collection.id] })).id;
  } else if (!collection.data_source_ids.includes(sourceId)) {
    await svc.collections.attach(p, collection.id, sourceId);
  }
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "quarry-agent-"));
  try {
    const tempPath = path.join(dir, "upload");
    await fsp.writeFile(tempPath, a.body, "utf8");
    const size = Buffer.byteLength(a.body, "utf8");
    const [doc] = await svc.documents.upload(p, sourceId, [{ filename: `${a.title}.md`, mimetype: "text/markdown", tempPath, size }]);
    return doc;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

function validationMessage(name: string, v: ValidateFunction): string {
  const items = (v.errors ?? []).map((e) => {
    const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "arguments";
    const extra = e.keyword === "additionalProperties" ? ` ('${String(e.params.additionalProperty)}')` : "";
    return `${at}: ${e.message ?? "is invalid"}${extra}`;
  });
  return `Invalid arguments for ${name}: ${items.join("; ")}. Fix them and call ${name} again.`;
}

/**
 * Checks the tool and scope (throws ToolRefused before anything runs), validates the arguments
 * and runs the tool. Service errors (not found, quota, bad URL) come back as isError outcomes
 * whose text tells the model what to change, as MCP asks of tool errors.
 */
export async function callTool(svc: ToolServices, p: Principal, name: string, rawArgs: unknown): Promise<ToolOutcome> {
  const spec = toolSpec(name);
  if (!spec) throw new ToolRefused(`Unknown tool '${name}'. Tools: ${toolsFor(p).map((t) => t.name).join(", ")}.`, "unknown_tool");
  if (!allows(p.scopes, spec.scope)) {
    throw new ToolRefused(`The tool '${name}' needs the '${spec.scope}' scope; this key has: ${p.scopes.join(", ")}.`, "scope");
  }
  try {
    svc.auth.requireScope(p, spec.scope); // also refuses changes before the email is verified
  } catch (err) {
    throw new ToolRefused(err instanceof Error ? err.message : String(err), "scope");
  }
  const args = dropNulls(rawArgs);
  const validate = validators.get(name)!;
  if (!validate(args)) return { text: validationMessage(name, validate), structured: null, isError: true };
  try {
    return { ...(await RUNNERS[name](svc, p, args)), isError: false };
  } catch (err) {
    if (err instanceof ServiceError || err instanceof ValidationError) return { text: err.message, structured: null, isError: true };
    throw err;
  }
}
