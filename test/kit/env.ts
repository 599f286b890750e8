// Server settings shared by suites.

/**
 * For suites that never embed: an ONNX profile whose model is absent (MODELS_DIR defaults to the
 * empty DATA_DIR/models, downloads off), so the server starts in about a second instead of loading
 * the default model in worker threads. The service runs "degraded" (lexical search).
 */
export const LIGHT_ENV: Record<string, string> = { EMBEDDING_PROFILE: "bge-small-en-v1.5", ALLOW_MODEL_DOWNLOAD: "false" };

export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export { noModelEnv } from "./server.js";
