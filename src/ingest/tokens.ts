// Token estimates for chunk sizes and retrieve budgets. gpt-tokenizer's default encoding (o200k,
// GPT-4o's and later models'; cl100k before its version 3) is what LLM consumers budget against;
// embedding models' own tokenizers differ by a few percent, which the chunk size defaults leave
// room for.
import { lazyRequire } from "../lazy-require.js";

/**
 * The encoder, built on first use: its tables take a third of a CPU-second to build, and most
 * processes and parse workers never chunk or budget a text (a server that only searches, a worker
 * that only parses).
 */
const tokenizer = lazyRequire<{ encode: (text: string) => number[] }>("gpt-tokenizer");

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return tokenizer().encode(text).length;
}
