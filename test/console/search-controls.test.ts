// The console's search controls and webhooks in Chromium (playwright-core and Debian's chromium,
// like console.test.ts), one server and one browser for the file: the playground's facet
// checkboxes show the API's counts and narrow the results, its filter builder and blend slider
// send what they say and the explanation shows each hit's ranks; the collection page's synonyms editor saves and
// reloads a set, and its language select saves a language (a shared source's 409 shown under it,
// the re-indexing it starts counted); the Webhooks page creates an endpoint (secret shown once), lists the deliveries a
// loopback receiver got, redelivers one with the same webhook-id, and deletes the endpoint.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumPath } from "../../src/crawl/render.js";
import { upload, waitIndexed, type TestServer } from "../kit/index.js";
import { openConsole, type ConsoleSession, shoot, TIMEOUT } from "./helpers.js";

const PRODUCTS = ["cli", "cli", "cli", "cli", "api", "api", "api", "web", "web"];
/** nine catalogue records, each a document whose metadata is its fields; every one says "turbine" */
const RECORDS = PRODUCTS.map((product, i) => ({ title: `Turbine part ${i}`, body: `turbine part ${i} for the ${product} kit`, product, price: i * 10 }));

/** a loopback webhook receiver that answers 200 and keeps what it got */
async function receiver() {
  const got: { id: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      got.push({ id: String(req.headers["webhook-id"]), body: Buffer.concat(parts).toString("utf8") });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  return { url, got, close };
}

describe.skipIf(!chromiumPath())("console: search controls, synonyms, languages and webhooks in Chromium", () => {
  let s: TestServer;
  let session: ConsoleSession | undefined;
  let context: BrowserContext;
  let page: Page;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let key: string;
  let source: string;
  let collection: string;
  const call = (method: string, path: string, json?: unknown) => s.call(method, path, { key, ...(json === undefined ? {} : { json }) });

  beforeAll(async () => {
    [session, hook] = await Promise.all([openConsole({ REQUIRE_EMAIL_VERIFICATION: "false", CRAWL_ALLOW_PRIVATE_NETWORKS: "true" }), receiver()]);
    ({ s, context, page } = session);
    // an owner signed in in the browser, an API key for the setup and the checks
    const signup = await context.request.post("/auth/signup", { data: { email: `sc.${process.pid}.${Date.now()}@example.com`, password: "facets and filters", workspace_name: "Parts" } });
    expect(signup.status()).toBe(201);
    key = (await (await context.request.post("/api-keys", { data: { name: "setup", scopes: ["admin"] } })).json()).key as string;
    source = (await call("POST", "/data-sources", { name: "Catalogue", source_type: "upload", configuration: { records: true } })).body.id;
    collection = (await call("POST", "/collections", { name: "Parts", data_source_ids: [source] })).body.id;
    expect((await upload(s, key, source, [{ name: "parts.json", content: JSON.stringify(RECORDS), type: "application/json" }])).status).toBe(202);
    expect((await waitIndexed(s, key, source)).length).toBe(RECORDS.length);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
    await hook?.close();
  });

  /** the label texts of a facet field's checkboxes, as value -> count */
  async function facetCounts(field: string): Promise<Record<string, number>> {
    const labels = await page.getByRole("group", { name: field, exact: true }).locator("label").allTextContents();
    return Object.fromEntries(labels.map((l) => /^(.*) \((\d+)\)$/.exec(l)!).map((m) => [m[1], Number(m[2])]));
  }
  const statusLine = () => page.locator(".tabpanel p[role=status]").first();

  it("facet checkboxes show the API's counts and narrow the results; the filter builder and the blend send what they say", async () => {
    await page.goto(`/workspace/search?collection=${collection}&q=turbine`);
    await statusLine().filter({ hasText: "for “turbine”" }).waitFor();
    expect(await facetCounts("file_type")).toEqual({ json: RECORDS.length }); // counted from the first search
    // metadata keys of the hits are offered as facets; one click counts and shows them
    await page.getByRole("button", { name: "metadata.product", exact: true }).click();
    await page.getByRole("group", { name: "metadata.product", exact: true }).waitFor();
    const api = (await call("POST", "/search", { collection_id: collection, query: "turbine", facets: ["file_type", "data_source_id", "metadata.product"] })).body;
    expect(api.facets["metadata.product"]).toEqual({ cli: 4, api: 3, web: 2 });
    expect(await facetCounts("metadata.product")).toEqual(api.facets["metadata.product"]);
    expect(await facetCounts("data_source_id")).toEqual({ Catalogue: RECORDS.length }); // the source by its name
    await shoot(page, "31-playground-facets");

    // checking "api" narrows the results to the three api parts, with the API's total
    await page.getByRole("checkbox", { name: /^api \(3\)$/ }).check();
    await statusLine().filter({ hasText: /^3 results/ }).waitFor();
    const shown = await page.locator(".hits .hit-title").allTextContents();
    const narrowed = (await call("POST", "/search", { collection_id: collection, query: "turbine", filter: { "metadata.product": "api" } })).body;
    expect(shown.sort()).toEqual(narrowed.results.map((h: { title: string }) => h.title).sort());
    expect(shown.sort()).toEqual(["Turbine part 4", "Turbine part 5", "Turbine part 6"]);
    expect(await facetCounts("metadata.product")).toEqual({ api: 3 });

    // a builder row (price at least 50) and the explanation: the checked facet still holds (AND)
    await page.getByText("Filter, facets and blend").click();
    await page.getByRole("button", { name: "Add condition" }).click();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText("Name the metadata key (for example product).").waitFor(); // a row without a key is not sent
    await page.getByLabel("Metadata key of condition 1").fill("price");
    await page.getByLabel("Operator of condition 1").selectOption("$gte");
    await page.getByLabel("Value of condition 1").fill("50");
    await page.getByLabel("Explain the ranking of each result").check();
    const sent = { $and: [{ "metadata.price": { $gte: 50 } }, { "metadata.product": "api" }] };
    expect(JSON.parse((await page.getByLabel("Filter sent to the API").textContent())!)).toEqual(sent);
    await page.getByLabel("Set the blend for this search").check();
    await page.getByLabel("Semantic ratio").fill("0.3");
    const request = page.waitForRequest((r) => r.url().endsWith("/search") && r.method() === "POST");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    expect((await request).postDataJSON()).toMatchObject({ filter: sent, hybrid: { semantic_ratio: 0.3 }, explain: true, facets: ["file_type", "data_source_id", "metadata.product"] });
    await statusLine().filter({ hasText: /^2 results/ }).waitFor();
    expect((await page.locator(".hits .hit-title").allTextContents()).sort()).toEqual(["Turbine part 5", "Turbine part 6"]);
    const explained = (await call("POST", "/search", { collection_id: collection, query: "turbine", filter: sent, explain: true })).body.results[0];
    await page.locator(".hits .explain summary").first().click();
    expect(await page.locator(".hits .explain dd").first().textContent()).toBe(`rank ${explained.explain.lexical.rank}, score ${explained.explain.lexical.score.toPrecision(3)}`);
    await shoot(page, "32-playground-filter");
  });

  it("the synonyms editor saves groups and one-way mappings, names a bad line, and shows them again", async () => {
    await page.goto(`/workspace/collections/${collection}`);
    const groups = page.getByLabel(/^Groups/);
    const mappings = page.getByLabel(/^One-way/);
    await expect.poll(() => groups.isEnabled()).toBe(true);
    await groups.fill("k8s, kubernetes\n?!, turbine");
    await page.getByRole("button", { name: "Save synonyms" }).click();
    await page.getByRole("alert").filter({ hasText: "Groups, line 2 (?!, turbine)" }).waitFor();
    await groups.fill("k8s, kubernetes\nrotor, blade hub");
    await mappings.fill("pg => postgresql, postgres");
    await page.getByRole("button", { name: "Save synonyms" }).click();
    await page.getByText("Saved 3 entries. The next search uses them.").waitFor();
    expect((await call("GET", `/collections/${collection}/synonyms`)).body).toEqual({
      groups: [["k8s", "kubernetes"], ["rotor", "blade hub"]],
      mappings: { pg: ["postgresql", "postgres"] },
    });
    await shoot(page, "33-collection-synonyms");
    await page.reload();
    await expect.poll(() => groups.inputValue()).toBe("k8s, kubernetes\nrotor, blade hub");
    expect(await mappings.inputValue()).toBe("pg => postgresql, postgres");
  });

  it("sets a language on creation and on the collection's page: a conflict is named, a change re-indexes, a German plural finds its singular", async () => {
    const titles = async (collection_id: string, query: string) =>
      (await call("POST", "/search", { collection_id, query, hybrid: { semantic_ratio: 0 } })).body.results.map((h: { title: string }) => h.title);
    await page.goto("/workspace/collections");
    await page.getByLabel("Name", { exact: true }).fill("Handbuch");
    await page.getByLabel("Language", { exact: true }).selectOption({ label: "Italian (it)" });
    await page.getByRole("button", { name: "Create collection" }).click();
    await page.getByText("Collection created. Add files below.").waitFor();
    const handbuch = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    expect((await call("GET", `/collections/${handbuch}`)).body.language).toBe("it");
    const select = page.getByLabel("Collection language");
    expect(await select.inputValue()).toBe("it");
    const [uploads] = (await call("GET", `/data-sources?collection_id=${handbuch}`)).body;
    expect((await upload(s, key, uploads.id, [{ name: "haus.md", content: "# Wohnen\n\nDas Haus am See hat einen großen Garten.\n", type: "text/markdown" }])).status).toBe(202);
    await waitIndexed(s, key, uploads.id);
    expect(await titles(handbuch, "Häuser")).toEqual([]); // Italian keeps "hauser" whole

    // another Italian collection on the same source: German here would split it, and the 409 says so by name
    const teile = await call("POST", "/collections", { name: "Teile", data_source_ids: [uploads.id], language: "it" });
    expect(teile.status).toBe(201);
    await select.selectOption({ label: "German (de)" });
    await page.getByRole("button", { name: "Save language" }).click();
    await page.getByRole("alert").filter({ hasText: `Data source “${uploads.name}” is also in collection “Teile”, whose language is 'it'` }).waitFor();
    expect((await call("GET", `/collections/${handbuch}`)).body.language).toBe("it");

    // without it, German saves and re-indexes the one document
    expect((await call("DELETE", `/collections/${teile.body.id}`)).status).toBe(204);
    await page.getByRole("button", { name: "Save language" }).click();
    await page.getByText("Saved: German (de), re-indexing 1 document.").waitFor();
    expect((await call("GET", `/collections/${handbuch}`)).body.language).toBe("de");
    await expect.poll(() => titles(handbuch, "Häuser"), { timeout: TIMEOUT }).toEqual(["Wohnen"]);
    await shoot(page, "36-collection-language");
  });

  it("creates a webhook, lists its deliveries, redelivers one and deletes the endpoint", async () => {
    await page.goto("/workspace");
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
    await page.getByText("No endpoints yet.").waitFor();
    await page.getByLabel("Endpoint URL").fill(hook.url);
    await page.getByLabel("Only events of this collection (optional)").selectOption(collection);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByLabel("The webhook signing secret").textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const [endpoint] = (await call("GET", "/webhooks")).body;
    expect(endpoint).toMatchObject({ url: hook.url, events: ["document.indexed"], collection_id: collection });
    await page.getByRole("button", { name: "I have stored it, hide it" }).click();
    expect(await page.getByLabel("The webhook signing secret").count()).toBe(0);

    // an indexed document is delivered; the log shows it
    expect((await upload(s, key, source, [{ name: "extra.json", content: JSON.stringify([{ title: "Spare", body: "spare turbine" }]), type: "application/json" }])).status).toBe(202);
    await expect.poll(() => hook.got.length, { timeout: TIMEOUT }).toBe(1);
    await page.getByRole("link", { name: hook.url }).click();
    await page.getByRole("heading", { level: 1, name: "Webhook deliveries" }).waitFor();
    const log = page.getByRole("table", { name: "Deliveries, newest first" });
    const row = log.locator("tbody tr").first();
    await row.filter({ hasText: "Delivered" }).waitFor();
    expect(await log.locator("tbody tr").count()).toBe(1);
    expect(await row.locator("th").textContent()).toBe(`document.indexed${hook.got[0]!.id}`);
    expect(await row.locator("td").nth(1).textContent()).toBe("200");
    await shoot(page, "34-webhook-deliveries");

    // redeliver: the same webhook-id again
    await row.getByRole("button", { name: /^Redeliver/ }).click();
    await expect.poll(() => hook.got.length, { timeout: TIMEOUT }).toBe(2);
    expect(hook.got[1]!.id).toBe(hook.got[0]!.id);
    await page.getByText(`Sending document.indexed (${hook.got[0]!.id}) again.`).waitFor();

    // delete, asked twice
    await page.getByRole("link", { name: "Webhooks", exact: true }).first().click();
    await page.getByRole("button", { name: `Delete ${hook.url}` }).click();
    await page.getByRole("button", { name: "Yes, delete" }).click();
    await page.getByText("No endpoints yet.").waitFor();
    expect((await call("GET", "/webhooks")).body).toEqual([]);
    await shoot(page, "35-webhooks");
  });
});
