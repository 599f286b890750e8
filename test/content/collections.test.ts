// Collections and data sources over real HTTP: CRUD, partial PATCH, attach/detach, counts that
// are always true, and tenant isolation (another tenant's ids answer exactly like missing ones).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  createCollection,
  createSource,
  expect422,
  expectDetail,
  startWithTenant,
  upload,
  uploadAndSettle,
  type Ctx,
} from "./helpers.js";

let c: Ctx;
let other: Ctx; // a second tenant on the same server

beforeAll(async () => {
  c = await startWithTenant();
  const t = await c.s.tenant();
  other = { s: c.s, tenantId: t.id, key: t.adminKey, call: (m, p, json) => c.s.call(m, p, { key: t.adminKey, json }) };
});
afterAll(async () => {
  await c?.s.close();
});

/** the counts of a collection as the API reports them */
async function counts(id: string) {
  const r = await c.call("GET", `/collections/${id}`);
  expect(r.status).toBe(200);
  const { document_count, indexed_count, data_source_count } = r.body;
  return { document_count, indexed_count, data_source_count };
}

describe("collections", () => {
  test("create (201), get, list: fields, defaults and zero counts", async () => {
    const r = await c.call("POST", "/collections", { name: "Docs" });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ name: "Docs", description: "", document_count: 0, indexed_count: 0, data_source_count: 0 });
    expect(r.body.id).toBeTypeOf("string");
    expect(new Date(r.body.created_at).toISOString()).toBe(r.body.created_at);
    const g = await c.call("GET", `/collections/${r.body.id}`);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
    const l = await c.call("GET", "/collections");
    expect(l.status).toBe(200);
    expect(l.body.map((x: any) => x.id)).toContain(r.body.id);
  });

  test("validation: name length, description length, unknown field -> 422 naming the field", async () => {
    expect422(await c.call("POST", "/collections", { name: "" }), "body", "name");
    expect422(await c.call("POST", "/collections", { name: "x".repeat(161) }), "body", "name");
    expect422(await c.call("POST", "/collections", { name: "ok", description: "d".repeat(2001) }), "body", "description");
    expect422(await c.call("POST", "/collections", {}), "body", "name");
    expect((await c.call("POST", "/collections", { name: "x".repeat(160), description: "d".repeat(2000) })).status).toBe(201);
  });

  test("create with data_source_ids: unknown or another tenant's source -> 404, nothing created", async () => {
    const mine = await createSource(c, "mine");
    const theirs = await createSource(other, "theirs");
    const before = (await c.call("GET", "/collections")).body.length;
    const missing = await c.call("POST", "/collections", { name: "bad", data_source_ids: [mine.id, "src_nope"] });
    expectDetail(missing, 404, "src_nope");
    const foreign = await c.call("POST", "/collections", { name: "bad", data_source_ids: [mine.id, theirs.id] });
    expectDetail(foreign, 404, theirs.id);
    expect(foreign.body.detail.replace(theirs.id, "ID")).toBe(missing.body.detail.replace("src_nope", "ID"));
    expect((await c.call("GET", "/collections")).body.length).toBe(before);
    const ok = await c.call("POST", "/collections", { name: "good", data_source_ids: [mine.id, mine.id] });
    expect(ok.status).toBe(201);
    expect(ok.body.data_source_count).toBe(1);
  });

  test("PATCH is partial: absent and null fields stay; data_source_ids replaces the whole set", async () => {
    const a = await createSource(c, "a");
    const b = await createSource(c, "b");
    const d = await createSource(c, "d");
    const col = await createCollection(c, "Patch me", [a.id, b.id]);
    const r1 = await c.call("PATCH", `/collections/${col.id}`, { description: "new words" });
    expect(r1.status, JSON.stringify(r1.body)).toBe(200);
    expect(r1.body).toMatchObject({ name: "Patch me", description: "new words", data_source_count: 2 });
    const r2 = await c.call("PATCH", `/collections/${col.id}`, { name: null, description: null, data_source_ids: null });
    expect(r2.status).toBe(200);
    expect(r2.body).toMatchObject({ name: "Patch me", description: "new words", data_source_count: 2 });
    const r3 = await c.call("PATCH", `/collections/${col.id}`, { name: "Renamed", data_source_ids: [d.id] });
    expect(r3.status).toBe(200);
    expect(r3.body).toMatchObject({ name: "Renamed", description: "new words", data_source_count: 1 });
    expect((await c.call("GET", `/data-sources?collection_id=${col.id}`)).body.map((s: any) => s.id)).toEqual([d.id]);
    expect((await c.call("GET", `/data-sources/${a.id}`)).body.collection_ids).toEqual([]);
    const r4 = await c.call("PATCH", `/collections/${col.id}`, { data_source_ids: [] });
    expect(r4.body.data_source_count).toBe(0);
    // empty body: nothing changes
    const r5 = await c.call("PATCH", `/collections/${col.id}`, {});
    expect(r5.status).toBe(200);
    expect(r5.body).toMatchObject({ name: "Renamed", description: "new words", data_source_count: 0 });
    // a bad id in the new set changes nothing at all
    const before = await c.call("GET", `/collections/${col.id}`);
    expectDetail(await c.call("PATCH", `/collections/${col.id}`, { name: "Other", data_source_ids: ["src_missing"] }), 404);
    expect((await c.call("GET", `/collections/${col.id}`)).body).toEqual(before.body);
    expect422(await c.call("PATCH", `/collections/${col.id}`, { name: "" }), "body", "name");
    expect422(await c.call("PATCH", `/collections/${col.id}`, { bogus: 1 }));
  });

  test("attach (PUT, 200 CollectionOut) and detach (DELETE, 204); idempotent attach; detach of an unattached source 404", async () => {
    const s1 = await createSource(c, "s1");
    const col = await createCollection(c, "Links");
    const put = await c.call("PUT", `/collections/${col.id}/data-sources/${s1.id}`);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ id: col.id, data_source_count: 1 });
    const again = await c.call("PUT", `/collections/${col.id}/data-sources/${s1.id}`);
    expect(again.status).toBe(200);
    expect(again.body.data_source_count).toBe(1);
    expect((await c.call("GET", `/data-sources/${s1.id}`)).body.collection_ids).toEqual([col.id]);
    const del = await c.call("DELETE", `/collections/${col.id}/data-sources/${s1.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBeNull();
    expect((await counts(col.id)).data_source_count).toBe(0);
    expectDetail(await c.call("DELETE", `/collections/${col.id}/data-sources/${s1.id}`), 404);
    expectDetail(await c.call("PUT", `/collections/col_missing/data-sources/${s1.id}`), 404, "col_missing");
    expectDetail(await c.call("PUT", `/collections/${col.id}/data-sources/src_missing`), 404, "src_missing");
  });

  test("counts stay true through uploads, failures, attach, detach, document and source deletes", async () => {
    const s1 = await createSource(c, "counted-1");
    const s2 = await createSource(c, "counted-2");
    const col = await createCollection(c, "Counted", [s1.id]);
    expect(await counts(col.id)).toEqual({ document_count: 0, indexed_count: 0, data_source_count: 1 });
    const docs1 = await uploadAndSettle(c, s1.id, [
      { name: "a.txt", data: "alpha text about apples" },
      { name: "b.txt", data: "beta text about bananas" },
      { name: "c.pdf", data: "this is not a pdf at all" }, // fails at upload time
    ]);
    expect(docs1.map((d) => d.status)).toEqual(["indexed", "indexed", "failed"]);
    expect(await counts(col.id)).toEqual({ document_count: 3, indexed_count: 2, data_source_count: 1 });
    await uploadAndSettle(c, s2.id, [{ name: "c.txt", data: "gamma text about cherries" }]);
    expect(await counts(col.id)).toEqual({ document_count: 3, indexed_count: 2, data_source_count: 1 });
    await c.call("PUT", `/collections/${col.id}/data-sources/${s2.id}`);
    expect(await counts(col.id)).toEqual({ document_count: 4, indexed_count: 3, data_source_count: 2 });
    // the list answer carries the same counts as the single answer
    const listed = (await c.call("GET", "/collections")).body.find((x: any) => x.id === col.id);
    expect(listed).toMatchObject(await counts(col.id));
    expect((await c.call("DELETE", `/documents/${docs1[0].id}`)).status).toBe(204);
    expect(await counts(col.id)).toEqual({ document_count: 3, indexed_count: 2, data_source_count: 2 });
    expect((await c.call("DELETE", `/collections/${col.id}/data-sources/${s1.id}`)).status).toBe(204);
    expect(await counts(col.id)).toEqual({ document_count: 1, indexed_count: 1, data_source_count: 1 });
    expect((await c.call("DELETE", `/data-sources/${s2.id}`)).status).toBe(204);
    expect(await counts(col.id)).toEqual({ document_count: 0, indexed_count: 0, data_source_count: 0 });
    // while documents are queued they count as documents but not as indexed
    await c.call("PUT", `/collections/${col.id}/data-sources/${s1.id}`);
    const up = await upload(c, s1.id, [{ name: "d.txt", data: "delta text about dates" }]);
    expect(up.status).toBe(202);
    const mid = await counts(col.id);
    expect(mid.document_count).toBe(3);
    expect(mid.indexed_count).toBeLessThanOrEqual(2);
  });

  test("delete (204) then 404; the sources stay", async () => {
    const s1 = await createSource(c, "kept");
    const col = await createCollection(c, "Doomed", [s1.id]);
    const r = await c.call("DELETE", `/collections/${col.id}`);
    expect(r.status).toBe(204);
    expectDetail(await c.call("GET", `/collections/${col.id}`), 404, col.id);
    expectDetail(await c.call("DELETE", `/collections/${col.id}`), 404);
    const s = await c.call("GET", `/data-sources/${s1.id}`);
    expect(s.status).toBe(200);
    expect(s.body.collection_ids).toEqual([]);
  });

  test("another tenant's collection answers exactly like a missing one, on every route", async () => {
    const theirs = await createCollection(other, "Theirs");
    const theirSource = await createSource(other, "their-src");
    const mine = await createSource(c, "mine-2");
    const missing = "col_doesnotexist0000";
    const cases: [string, (id: string) => string, unknown?][] = [
      ["GET", (id) => `/collections/${id}`],
      ["PATCH", (id) => `/collections/${id}`, { name: "hijack" }],
      ["DELETE", (id) => `/collections/${id}`],
      ["PUT", (id) => `/collections/${id}/data-sources/${mine.id}`],
      ["DELETE", (id) => `/collections/${id}/data-sources/${mine.id}`],
      ["GET", (id) => `/data-sources?collection_id=${id}`],
      ["GET", (id) => `/documents?collection_id=${id}`],
    ];
    for (const [method, path, body] of cases) {
      const a = await c.call(method, path(theirs.id), body);
      const b = await c.call(method, path(missing), body);
      expectDetail(a, 404);
      expectDetail(b, 404);
      expect(a.body.detail.replace(theirs.id, "ID"), `${method} ${path("ID")}`).toBe(b.body.detail.replace(missing, "ID"));
    }
    // attaching their source to my collection: 404 like a missing source
    const col = await createCollection(c, "Mine");
    const a = await c.call("PUT", `/collections/${col.id}/data-sources/${theirSource.id}`);
    const b = await c.call("PUT", `/collections/${col.id}/data-sources/src_doesnotexist000`);
    expectDetail(a, 404);
    expect(a.body.detail.replace(theirSource.id, "ID")).toBe(b.body.detail.replace("src_doesnotexist000", "ID"));
    // theirs is untouched and invisible to me
    expect((await other.call("GET", `/collections/${theirs.id}`)).body).toMatchObject({ name: "Theirs", data_source_count: 0 });
    expect((await c.call("GET", "/collections")).body.map((x: any) => x.id)).not.toContain(theirs.id);
  });
});

describe("data sources", () => {
  test("create upload and website sources (201); configuration is kept as sent", async () => {
    const col = await createCollection(c, "For sources");
    const configuration = { url: "https://example.com/docs", max_depth: 2, include_paths: ["/docs"], nested: { render_js: false } };
    const w = await c.call("POST", "/data-sources", { name: "Site", source_type: "website", configuration, collection_ids: [col.id] });
    expect(w.status, JSON.stringify(w.body)).toBe(201);
    expect(w.body).toMatchObject({
      name: "Site",
      source_type: "website",
      status: "ready",
      configuration,
      collection_ids: [col.id],
      last_synced_at: null,
      document_count: 0,
      indexed_count: 0,
    });
    const u = await c.call("POST", "/data-sources", { name: "Files", source_type: "upload" });
    expect(u.status).toBe(201);
    expect(u.body).toMatchObject({ source_type: "upload", configuration: {}, collection_ids: [], status: "ready" });
    const g = await c.call("GET", `/data-sources/${w.body.id}`);
    expect(g.body).toEqual(w.body);
    expect((await c.call("GET", `/collections/${col.id}`)).body.data_source_count).toBe(1);
  });

  test("create validation: bad source_type, long name, missing fields -> 422; unknown collection -> 404", async () => {
    expect422(await c.call("POST", "/data-sources", { name: "x", source_type: "ftp" }), "body", "source_type");
    expect422(await c.call("POST", "/data-sources", { name: "x".repeat(201), source_type: "upload" }), "body", "name");
    expect422(await c.call("POST", "/data-sources", { source_type: "upload" }), "body", "name");
    expect422(await c.call("POST", "/data-sources", { name: "x" }), "body", "source_type");
    expect422(await c.call("POST", "/data-sources", { name: "x", source_type: "upload", configuration: "nope" }), "body", "configuration");
    const theirs = await createCollection(other, "their col");
    const before = (await c.call("GET", "/data-sources")).body.length;
    expectDetail(await c.call("POST", "/data-sources", { name: "x", source_type: "upload", collection_ids: [theirs.id] }), 404, theirs.id);
    expect((await c.call("GET", "/data-sources")).body.length).toBe(before);
  });

  test("list: all of the tenant's sources, or those of one collection", async () => {
    const s1 = await createSource(c, "list-1");
    const s2 = await createSource(c, "list-2");
    const s3 = await createSource(c, "list-3");
    const col = await createCollection(c, "Filter", [s1.id, s3.id]);
    const all = await c.call("GET", "/data-sources");
    expect(all.status).toBe(200);
    const ids = all.body.map((s: any) => s.id);
    for (const s of [s1, s2, s3]) expect(ids).toContain(s.id);
    const mine = await c.call("GET", `/data-sources?collection_id=${col.id}`);
    expect(mine.body.map((s: any) => s.id).sort()).toEqual([s1.id, s3.id].sort());
    const theirs = (await other.call("GET", "/data-sources")).body.map((s: any) => s.id);
    for (const s of [s1, s2, s3]) expect(theirs).not.toContain(s.id);
  });

  test("get: indexed vs total counts and ready status after a batch", async () => {
    const s = await createSource(c, "counts");
    await uploadAndSettle(c, s.id, [
      { name: "one.txt", data: "one two three" },
      { name: "two.md", data: "# Two\n\nfour five six" },
      { name: "bad.docx", data: "not a word file" },
    ]);
    const g = await c.call("GET", `/data-sources/${s.id}`);
    expect(g.body).toMatchObject({ document_count: 3, indexed_count: 2, status: "ready" });
    expect(g.body.last_synced_at).toBeTypeOf("string");
  });

  test("delete (204) then 404; another tenant's source answers like a missing one", async () => {
    const s = await createSource(c, "gone");
    const col = await createCollection(c, "holder", [s.id]);
    expect((await c.call("DELETE", `/data-sources/${s.id}`)).status).toBe(204);
    expectDetail(await c.call("GET", `/data-sources/${s.id}`), 404, s.id);
    expectDetail(await c.call("DELETE", `/data-sources/${s.id}`), 404);
    expect((await c.call("GET", `/collections/${col.id}`)).body.data_source_count).toBe(0);

    const theirs = await createSource(other, "theirs-2");
    const missing = "src_doesnotexist0000";
    for (const [method, path] of [
      ["GET", (id: string) => `/data-sources/${id}`],
      ["DELETE", (id: string) => `/data-sources/${id}`],
      ["POST", (id: string) => `/data-sources/${id}/reindex`],
      ["GET", (id: string) => `/documents?data_source_id=${id}`],
    ] as const) {
      const a = await c.call(method, path(theirs.id));
      const b = await c.call(method, path(missing));
      expectDetail(a, 404);
      expect(a.body.detail.replace(theirs.id, "ID"), `${method} ${path("ID")}`).toBe(b.body.detail.replace(missing, "ID"));
    }
    expect((await other.call("GET", `/data-sources/${theirs.id}`)).status).toBe(200);
  });

  test("a search-scope key reads but cannot change collections or sources (403)", async () => {
    const k = await c.call("POST", "/api-keys", { name: "reader", scopes: ["search"] });
    expect(k.status, JSON.stringify(k.body)).toBe(201);
    const reader = k.body.key as string;
    const s = await createSource(c, "scoped");
    expect((await c.s.call("GET", `/data-sources/${s.id}`, { key: reader })).status).toBe(200);
    expect((await c.s.call("GET", "/collections", { key: reader })).status).toBe(200);
    expectDetail(await c.s.call("POST", "/collections", { key: reader, json: { name: "no" } }), 403, "ingest");
    expectDetail(await c.s.call("DELETE", `/data-sources/${s.id}`, { key: reader }), 403, "ingest");
    expectDetail(await c.s.call("POST", "/reindex", { key: reader }), 403, "ingest");
    expect((await c.s.call("GET", `/data-sources/${s.id}`, { key: reader })).status).toBe(200);
  });
});
