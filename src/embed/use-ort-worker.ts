// Worker thread that runs Universal Sentence Encoder lite on onnxruntime (the default `onnx`
// runtime; see use-lite-ort.ts). workerData.threads sets its intra-op threads.
import { workerData } from "node:worker_threads";
import { SentencePieceTokenizer } from "./sentencepiece.js";
import { readVocabulary } from "./static-table.js";
import { loadOrtUseLite } from "./use-lite-ort.js";
import { serveUseLite } from "./use-worker-host.js";

serveUseLite(async () => {
  const tokenizer = new SentencePieceTokenizer(readVocabulary().vocabulary);
  const threads = typeof (workerData as { threads?: unknown } | null)?.threads === "number" ? (workerData as { threads: number }).threads : 1;
  const run = await loadOrtUseLite({ threads });
  return { encode: (text) => tokenizer.encode(text), run };
});
