// The shipped model file is the one its id names. The id names the vector index (embed/profiles.ts
// deriveIndexName), so a file replaced under the same id would leave every collection's passage
// vectors from the old file searched with the new file's query vectors (docs/model.md, "The
// in-memory evaluation and the service agree"). A new file needs a new MODEL_ID and checksum.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readModel } from "../../src/model/artifact.js";
import { MODEL_DIR, MODEL_FILE, MODEL_ID, MODEL_PAYLOAD_SHA256 } from "../../src/model/paths.js";

describe("the shipped model file", () => {
  it("is the file its id names: a new file needs a new MODEL_ID (and so a new vector index)", () => {
    const { header } = readModel(path.join(MODEL_DIR, MODEL_FILE));
    expect(header.model).toBe(MODEL_ID);
    expect(
      header.payload_sha256,
      `model/${MODEL_FILE} is not the file ${MODEL_ID} was shipped as: give the new file a new MODEL_ID in src/model/paths.ts (its vectors need their own index) and record its checksum there`,
    ).toBe(MODEL_PAYLOAD_SHA256);
  });
});
