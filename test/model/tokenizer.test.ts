// The model's tokenizer: the cut that a model file's tokens were trained on.
import { describe, expect, it } from "vitest";
import { modelTokens, MAX_TOKEN_LENGTH } from "../../src/model/tokenizer.js";

describe("modelTokens", () => {
  it("folds case and diacritics and stems inflections to one token", () => {
    expect(modelTokens("Configuring")).toEqual(modelTokens("configured"));
    expect(modelTokens("Café RÉSUMÉ")).toEqual(["cafe", "resum"]);
  });

  it("keeps an identifier whole and adds its parts", () => {
    expect(modelTokens("createReadStream")).toEqual(["createreadstream", "creat", "read", "stream"]);
    expect(modelTokens("HTTPServer")).toEqual(["httpserver", "http", "server"]);
    expect(modelTokens("max_buffer")).toEqual(["max", "buffer"]);
  });

  it("drops overlong runs (hashes, base64) and punctuation", () => {
    expect(modelTokens(`${"a".repeat(MAX_TOKEN_LENGTH + 1)} ok !!! ---`)).toEqual(["ok"]);
  });

  it("segments non-Latin scripts at letter runs without stemming them", () => {
    expect(modelTokens("Привет, мир")).toEqual(["привет", "мир"]);
  });

  it("gives the same tokens every time (no state between calls)", () => {
    const text = "Why does my process exit before the promise resolves?";
    expect(modelTokens(text)).toEqual(modelTokens(text));
  });
});
