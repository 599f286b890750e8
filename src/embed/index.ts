// Entry point of the embedding layer: profiles, the provider factory and the types callers need.
import { silentLogger, type EmbedLogger } from "./logger.js";
import { OnnxEmbedder } from "./onnx.js";
import { OpenAiEmbedder } from "./openai.js";
import { UseLiteEmbedder } from "./use-lite.js";
import { StaticEmbedder } from "./static.js";
import { QuarryStaticEmbedder } from "./quarry-static.js";
import type { Embedder, EmbeddingProfile } from "./types.js";

export type { Embedder, EmbedderState, EmbedderStatus, EmbeddingProfile, EmbeddingProvider } from "./types.js";
export type { EmbedLogger } from "./logger.js";
export { silentLogger } from "./logger.js";
export { EmbedderUnavailableError, EmbeddingError, EmbeddingProfileError } from "./errors.js";
export {
  builtInProfiles,
  deriveIndexName,
  loadProfiles,
  resolveActiveProfile,
  validateProfile,
  PROVIDERS,
  USE_LITE_MAX_TOKENS,
  type LoadProfilesOptions,
} from "./profiles.js";
export { UseLiteEmbedder, type PassageOptions, type UseLiteOptions, type UseLiteStats } from "./use-lite.js";
export { OnnxEmbedder } from "./onnx.js";
export { StaticEmbedder, type StaticOptions } from "./static.js";
export { QuarryStaticEmbedder, staticBaseOf, type StaticBaseModel } from "./quarry-static.js";
export { SentencePieceTokenizer } from "./sentencepiece.js";
export { OpenAiEmbedder } from "./openai.js";

export interface CreateEmbedderOptions {
  /** MODELS_DIR */
  modelsDir: string;
  /** ALLOW_MODEL_DOWNLOAD */
  allowDownload: boolean;
  logger?: EmbedLogger;
  /** EMBED_WORKERS: worker threads of the use-lite pool (default min(2, cores)) */
  poolSize?: number;
  /** use-lite: keep one extra worker for queries (default true); an ingest-only worker process can turn it off */
  queryWorker?: boolean;
}

/**
 * The embedder for a profile. It starts loading in the background at once; status() says
 * loading/ready/unavailable and embed calls made while loading wait for it. Never throws for a
 * missing model (that is status "unavailable"); throws EmbedderUnavailableError only for a
 * profile the provider cannot serve at all (use-lite with a dimension other than 512).
 */
export function createEmbedder(profile: EmbeddingProfile, options: CreateEmbedderOptions): Embedder {
  const logger = options.logger ?? silentLogger;
  switch (profile.provider) {
    case "quarry":
      return new QuarryStaticEmbedder(profile, { logger });
    case "use-lite":
      return new UseLiteEmbedder(profile, { logger, poolSize: options.poolSize, queryWorker: options.queryWorker });
    case "static":
      return new StaticEmbedder(profile, { modelsDir: options.modelsDir, logger });
    case "onnx":
      return new OnnxEmbedder(profile, { modelsDir: options.modelsDir, allowDownload: options.allowDownload, logger });
    case "openai":
      return new OpenAiEmbedder(profile, { logger });
  }
}
