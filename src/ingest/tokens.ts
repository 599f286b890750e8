// Token estimates for chunk sizes and retrieve budgets. gpt-tokenizer (cl100k) is what LLM
// consumers budget against; embedding models' own tokenizers differ by a few percent, which the
// chunk size defaults leave room for.
import { encode } from "gpt-tokenizer";

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return encode(text).length;
}
