// Embedding profiles (what the API shows as EmbeddingProfileOut) and the embedder interface the
// ingest pipeline and the search engine call. Providers live beside this file.

export type EmbeddingProvider = "quarry" | "use-lite" | "static" | "onnx" | "openai";

export interface EmbeddingProfile {
  name: string;
  provider: EmbeddingProvider;
  model: string;
  dimension: number;
  max_input_tokens: number;
  chunk_size_tokens: number;
  chunk_overlap_tokens: number;
  query_prefix: string;
  passage_prefix: string;
  modalities: string[];
  description: string;
  /** name of the vector index this profile writes (dimension-specific); null = derived */
  index_name: string | null;
  /** provider settings: ONNX pooling/normalize/quantized, OpenAI base_url/api_key_env/batch_size ... */
  options: Record<string, unknown>;
}

export type EmbedderState = "loading" | "ready" | "unavailable";

export interface EmbedderStatus {
  state: EmbedderState;
  /** why it is unavailable or what it is loading, in words an operator can act on */
  detail: string | null;
}

export interface Embedder {
  readonly profile: EmbeddingProfile;
  status(): EmbedderStatus;
  /** the model's own version (a file's date and checksum, a package's version), null when unknown or not loaded */
  modelVersion?(): string | null;
  /** what runs the model, where a provider has a choice ("onnxruntime", "TensorFlow.js"); not part
   * of the model's identity: runtimes of one model give the same vectors */
  runtime?(): string | null;
  /** resolves true once the model can embed, false when it gave up (unavailable) */
  whenReady(): Promise<boolean>;
  /** query embedding (query_prefix applied), L2-normalised, length profile.dimension */
  embedQuery(text: string): Promise<Float32Array>;
  /** passage embeddings (passage_prefix applied), L2-normalised, same order as input */
  embedPassages(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}
