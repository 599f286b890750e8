// Records sources over HTTP (inject): `configuration: {"records": true}` makes each CSV row (or JSON
// array element) its own document with the fields as metadata; without it a CSV stays one document.
// Lexical only (no model): what is tested is the split, not ranking.
import { beforeAll, describe, expect, it } from "vitest";
import { createCollection, createSource, noModelEnv, upload, useServer, waitIndexed } from "../kit/index.js";

const CSV = `sku,name,colour,price
A-100,Trail runner shoe,crimson,89.90
A-101,Rain jacket,olive,120
A-102,Wool socks,heather grey,14.50
A-103,Headlamp,black,35
A-104,Water bottle,turquoise,19
`;

const JSON_ARRAY = JSON.stringify([
  { title: "Folding chair", material: "aluminium", weight_kg: 2.1 },
  { title: "Camp stove", material: "steel", fuel: ["gas", "butane"] },
  { title: "Sleeping mat", material: "foam" },
]);

describe("records sources", () => {
  const s = useServer(noModelEnv());
  let key: string;

  beforeAll(async () => {
    key = (await s.tenant()).adminKey;
  });

  const recordsSource = async (name: string) => {
    const r = await s.call("POST", "/data-sources", { key, json: { name, source_type: "upload", configuration: { records: true } } });
    expect(r.status).toBe(201);
    expect(r.body.configuration).toEqual({ records: true });
    return r.body.id as string;
  };

  it("gives one document per CSV row, searchable by a cell value, with the columns as metadata", async () => {
    const src = await recordsSource("Catalogue");
    const col = await createCollection(s, key, [src], "Shop");
    const up = await upload(s, key, src, [{ name: "products.csv", content: CSV, type: "text/csv" }]);
    expect(up.status).toBe(202);
    expect(up.body).toHaveLength(5);
    const docs = await waitIndexed(s, key, src);
    expect(docs).toHaveLength(5);
    expect(docs.every((d) => d.status === "indexed")).toBe(true);
    expect(docs.map((d) => d.source).sort()).toEqual([1, 2, 3, 4, 5].map((i) => `products.csv#${i}`));
    expect(docs.map((d) => d.title).sort()).toEqual(["Headlamp", "Rain jacket", "Trail runner shoe", "Water bottle", "Wool socks"]);

    const r = await s.call("POST", "/search", { key, json: { collection_id: col, query: "turquoise" } });
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(1);
    const hit = r.body.results[0];
    expect(hit.title).toBe("Water bottle");
    expect(hit.metadata).toMatchObject({ sku: "A-104", name: "Water bottle", colour: "turquoise", price: "19", filename: "products.csv", record: 5 });
    expect(hit.snippet).toContain("turquoise");
  });

  it("gives one document per element of a JSON array", async () => {
    const src = await recordsSource("Gear");
    const col = await createCollection(s, key, [src], "Gear");
    const up = await upload(s, key, src, [{ name: "gear.json", content: JSON_ARRAY, type: "application/json" }]);
    expect(up.status).toBe(202);
    const docs = await waitIndexed(s, key, src);
    expect(docs).toHaveLength(3);
    const r = await s.call("POST", "/search", { key, json: { collection_id: col, query: "butane" } });
    expect(r.body.results.map((h: any) => h.title)).toEqual(["Camp stove"]);
    expect(r.body.results[0].metadata).toMatchObject({ material: "steel", fuel: ["gas", "butane"], record: 2 });
  });

  it("keeps a CSV as one document without the option", async () => {
    const src = await createSource(s, key, "Plain");
    const up = await upload(s, key, src, [{ name: "products.csv", content: CSV, type: "text/csv" }]);
    expect(up.status).toBe(202);
    const docs = await waitIndexed(s, key, src);
    expect(docs).toHaveLength(1);
    expect(docs[0].source).toBe("products.csv");
  });

  it("refuses a records option that is not a boolean", async () => {
    const r = await s.call("POST", "/data-sources", { key, json: { name: "x", source_type: "upload", configuration: { records: "yes" } } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "configuration", "records"]);
  });
});
