// Ids: random ones are unguessable; sortable ones keep creation order within a millisecond (the
// audit log lists by (at, id), and keys created in one millisecond came out in random order).
import { describe, expect, it } from "vitest";
import { newId, sortableId } from "../../src/store/ids.js";

describe("ids", () => {
  it("sortable ids sort in creation order, also many within one millisecond", () => {
    const ids = Array.from({ length: 2000 }, () => sortableId("aud"));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toMatch(/^aud_[0-9a-f]{28}$/);
  });

  it("random ids differ and carry their prefix", () => {
    const a = newId("col");
    expect(a).toMatch(/^col_[0-9a-f]{20}$/);
    expect(newId("col")).not.toBe(a);
  });
});
