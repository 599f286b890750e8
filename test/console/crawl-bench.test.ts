// The console's crawl, collection, benchmark and workspace screens in Chromium (playwright-core and
// Debian's chromium, like console.test.ts). A verified owner checks a fixture site on loopback
// (CRAWL_ALLOW_PRIVATE_NETWORKS=true, as the crawl API tests do), starts the crawl with the check's
// suggested limits, follows it from the home page, cancels and retries it, sees it finish; renames
// the collection, detaches and re-attaches its source, reads a page's chunks; searches, marks
// relevant results, builds a suite from them, runs it twice and reads its metrics, history and
// misses; then deletes the workspace and lands on the sign-up screen. Assertions are on what a
// person sees; every screen is captured at 1280 px and 390 px (test-output/screenshots/).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { chromiumPath } from "../../src/crawl/render.js";
import type { TestServer } from "../kit/index.js";
import { html, links, send, serve, type FixtureServer } from "../crawl/fixtures.js";
import { tokenFromLink } from "../accounts/helpers/mail.js";
import { openConsole, type ConsoleSession, outbox, shoot as shootPage } from "./helpers.js";

const CONTENT = ["/lamps", "/fog-signals", "/logbook"];

/** A lighthouse handbook: robots.txt, a sitemap and llms.txt listing four pages. */
function lighthouseSite(gate: { wait: Promise<void> | null }) {
  return serve(async (req, res, { base, url }) => {
    const p = url.pathname;
    if (p === "/robots.txt") return send(req, res, { type: "text/plain", body: `User-agent: *\nAllow: /\nSitemap: ${base}/sitemap.xml\n` });
    if (p === "/sitemap.xml") {
      const locs = ["/", ...CONTENT].map((x) => `<url><loc>${base}${x}</loc></url>`).join("");
      return send(req, res, { type: "application/xml", body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs}</urlset>` });
    }
    if (p === "/llms.txt") {
      return send(req, res, {
        type: "text/plain; charset=utf-8",
        body: `# Lighthouse handbook\n\n> For keepers.\n\n## Pages\n\n- [Home](${base}/)\n- [Lamps](${base}/lamps)\n- [Fog signals](${base}/fog-signals)\n- [Logbook](${base}/logbook)\n`,
      });
    }
    if (p === "/") return send(req, res, { body: html("Lighthouse handbook", `<p>Duties of a keeper, from dusk to dawn.</p>${links(...CONTENT)}`) });
    // content pages wait while the test holds the gate: the crawl stays running until it opens
    if (CONTENT.includes(p) && gate.wait) await gate.wait;
    if (p === "/lamps") {
      return send(req, res, {
        body: html(
          "Lamps",
          `<h2>Fresnel lens</h2><p>The Fresnel lens gathers the light of the paraffin lamp into a beam. Polish the prisms each morning
and trim the paraffin wick so the flame burns without smoke.</p><h2>Clockwork</h2><p>Wind the rotation clockwork every four hours.</p>${links("/")}`,
        ),
      });
    }
    if (p === "/fog-signals") {
      return send(req, res, {
        body: html("Fog signals", `<h2>Diaphone</h2><p>When fog rolls in, start the compressor and sound the diaphone foghorn: two blasts every minute.</p>${links("/")}`),
      });
    }
    if (p === "/logbook") {
      return send(req, res, {
        body: html("Logbook", `<h2>Entries</h2><p>Record visibility, wind and each hour the foghorn sounded. Note passing ships by name.</p>${links("/")}`),
      });
    }
    send(req, res, { status: 404, type: "text/plain", body: "not found" });
  });
}

describe.skipIf(!chromiumPath())("console: crawl, collections, benchmarks and workspace deletion in Chromium", () => {
  let s: TestServer;
  let site: FixtureServer;
  let session: ConsoleSession | undefined;
  let context: BrowserContext;
  let page: Page;
  let release: () => void = () => undefined;
  const gate: { wait: Promise<void> | null } = { wait: null };

  beforeAll(async () => {
    [session, site] = await Promise.all([openConsole({ CRAWL_ALLOW_PRIVATE_NETWORKS: "true" }), lighthouseSite(gate)]);
    ({ s, context, page } = session);
  }, 180_000);

  afterAll(async () => {
    release();
    await session?.close();
    await site?.close();
  });

  const headingIs = (name: string | RegExp) => page.getByRole("heading", { level: 1, name, exact: typeof name === "string" }).waitFor();
  const visible = async (l: Locator) => {
    await l.first().waitFor({ state: "visible" });
    return l.first();
  };
  const nav = (name: string) => page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click();
  const shoot = (name: string) => shootPage(page, name);
  /** the <dd> next to a <dt> of a facts list */
  const fact = (list: Locator, term: string) => list.locator("div", { has: page.locator("dt", { hasText: new RegExp(`^${term}$`) }) }).locator("dd");

  it("checks a site, crawls it (cancel, retry), manages the collection, benchmarks the search and deletes the workspace", async () => {
    // --- a verified owner (the sign-up screens have their own test): the API, in this browser's cookie jar
    const mail = outbox(s.dataDir);
    const email = `keeper.${process.pid}.${Date.now()}@example.com`;
    const signup = await context.request.post("/auth/signup", { data: { email, password: "beam across the bay", workspace_name: "Lighthouse Keepers" } });
    expect(signup.status()).toBe(201);
    const slug = (await signup.json()).tenant.slug as string;
    const token = tokenFromLink(await mail(/verify/i), s.url, "verify-email");
    expect((await context.request.post("/auth/verify", { data: { token } })).status()).toBe(200);

    await page.goto("/workspace");
    await headingIs("Lighthouse Keepers");
    await visible(page.getByText("Nothing is indexing right now."));

    // --- the site check: a bad address is refused under the field; a good one lists its checks --------
    await nav("Crawl");
    await headingIs("Crawl a website");
    const address = page.getByLabel("Website address");
    await address.fill("lighthouse handbook");
    await address.press("Enter"); // keyboard only
    expect(await (await visible(page.locator(".field--invalid .field-error"))).textContent()).toBe("Input should be a valid URL (absolute, with scheme)");
    expect(await address.getAttribute("aria-invalid")).toBe("true");
    await address.fill(`${site.base}/`);
    await page.getByRole("button", { name: "Check site" }).click();
    await visible(page.getByText("This site can be crawled."));
    const summary = page.locator('dl[aria-label="Site check summary"]');
    expect(await fact(summary, "robots.txt").textContent()).toBe("Found; crawling allowed");
    expect(await fact(summary, "Sitemap").textContent()).toBe("Found, 4 page URLs");
    expect(await fact(summary, "llms.txt").textContent()).toBe("Found, 4 pages");
    expect(await fact(summary, "Markdown twin").textContent()).toBe("No");
    expect(await fact(summary, "Needs JavaScript").textContent()).toBe("No");
    expect(await fact(summary, "Estimated pages").textContent()).toBe("4");
    const checks = await page.getByRole("list", { name: "Checks" }).getByRole("listitem").allTextContents();
    expect(checks.some((c) => /^Pass robots\.txt/.test(c))).toBe(true);
    expect(checks.some((c) => /^Pass Sitemap.*4 page URLs/.test(c))).toBe(true);
    expect(checks.some((c) => /^Pass llms\.txt/.test(c))).toBe(true);
    // the suggestions are the form's values: 4 pages and 10% headroom, depth 2
    expect(await page.getByLabel("Page limit").inputValue()).toBe("5");
    expect(await page.getByLabel("Link depth").inputValue()).toBe("2");
    expect(await page.getByLabel("Into collection").locator("option:checked").textContent()).toBe("A new collection…");
    await page.getByLabel("New collection name").fill("Lighthouse handbook");
    await shoot("11-crawl-check");

    // --- start: the content pages hang until the gate opens, so the crawl is seen running ----------
    gate.wait = new Promise<void>((r) => (release = r));
    await page.getByRole("button", { name: "Start crawl" }).click();
    await page.waitForURL(/\/workspace\/crawl\/[^/]+$/);
    await headingIs(`Crawl of ${new URL(site.base).host}`);
    await visible(page.locator(".status", { hasText: "Running" }));

    // the home page lists it under "Indexing now"
    await nav("Home");
    const inProgress = await visible(page.getByRole("list", { name: "Crawls in progress" }));
    expect(await inProgress.textContent()).toContain(`Crawl of ${site.base}/`);
    expect(await inProgress.getByRole("progressbar").getAttribute("aria-valuetext")).toMatch(/^\d of 5 pages$/);
    await shoot("12-home-indexing");
    await inProgress.getByRole("link", { name: `Crawl of ${site.base}/` }).click();
    await headingIs(`Crawl of ${new URL(site.base).host}`);

    // cancel keeps what was indexed; retry resumes and finishes
    await page.getByRole("button", { name: "Cancel crawl" }).click();
    await visible(page.locator(".status", { hasText: "Cancelled" }));
    expect(await page.locator(".crawl-status").textContent()).toMatch(/Pages already indexed are kept/);
    gate.wait = null;
    release();
    await page.getByRole("button", { name: "Retry" }).click();
    // the crawl, then the indexing of its pages (the crawl stays running until they are searchable)
    await page.locator(".status", { hasText: "Completed" }).first().waitFor({ timeout: 60_000 }).catch(async (err: unknown) => {
      throw new Error(`the crawl did not complete; the page says: ${await page.locator("main").innerText()}`, { cause: err });
    });
    await visible(page.getByText("Finished: the pages are indexed and searchable."));
    expect(await page.getByRole("progressbar", { name: "Pages crawled" }).getAttribute("aria-valuetext")).toBe("4 of 5 pages");
    expect(await page.getByRole("button", { name: "Cancel crawl" }).count()).toBe(0);
    await shoot("13-crawl-finished");

    // --- the collection: rename, detach and attach the source, read a page's chunks --------------------
    await page.getByRole("link", { name: "Open the collection" }).click();
    await headingIs("Lighthouse handbook");
    await page.getByLabel("Collection name").fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    expect(await (await visible(page.locator("#settings-heading ~ form .field-error"))).textContent()).toBe("String should have at least 1 character");
    await page.getByLabel("Collection name").fill("Keeper's handbook");
    await page.getByRole("button", { name: "Save changes" }).click();
    await headingIs("Keeper's handbook");
    const sourceRow = page.locator("table.sources tbody tr").first();
    const sourceName = (await sourceRow.locator("th").textContent())!;
    expect(await sourceRow.textContent()).toMatch(/Website.*4 \(4 indexed\)/);
    await sourceRow.getByRole("button", { name: `Detach ${sourceName}` }).click();
    expect(await sourceRow.getByRole("group").textContent()).toMatch(/Its documents stay indexed/);
    await page.keyboard.press("Enter"); // the confirmation has the focus
    await visible(page.getByText(`Detached “${sourceName}”. Its documents are kept and stay indexed for other collections.`));
    await visible(page.getByText("No data source is attached"));
    expect(await page.getByLabel("Attach a data source of this workspace").locator("option:checked").textContent()).toMatch(new RegExp(`^${sourceName}`));
    await page.getByRole("button", { name: "Attach", exact: true }).click();
    await visible(page.getByText(`Attached “${sourceName}”`));
    await page.locator("table.documents tbody tr").nth(3).waitFor();
    await page.getByRole("button", { name: "Delete collection" }).click();
    expect(await page.getByRole("group", { name: "Delete collection?" }).textContent()).toMatch(/Its data sources and documents are kept\./);
    await page.getByRole("group", { name: "Delete collection?" }).getByRole("button", { name: "Cancel" }).click();
    await shoot("14-collection-manage");

    await page.locator("table.documents").getByRole("link", { name: "Lamps" }).click();
    await headingIs("Lamps");
    const chunks = page.locator("ol.chunks > li");
    await chunks.first().waitFor();
    const paths = await chunks.locator(".heading-path").allTextContents();
    expect(paths).toEqual(["Section: (no heading)", "Section: Fresnel lens", "Section: Clockwork"]);
    expect((await chunks.allTextContents()).join(" ")).toContain("trim the paraffin wick");
    await shoot("15-document-chunks");

    // --- search, mark relevant results, and keep them as benchmark cases -----------------------------
    await nav("Search");
    await headingIs("Search playground");
    await page.getByLabel("Query").fill("paraffin fresnel lens");
    await page.getByLabel("Query").press("Enter");
    const hits = page.locator("ol.hits > li");
    await hits.first().waitFor();
    expect(await hits.first().locator(".hit-title").textContent()).toBe("Lamps");
    await hits.first().getByLabel("Mark as relevant").check();
    await page.getByRole("button", { name: "Add as benchmark case (1 relevant)" }).click();
    await visible(page.getByText("Case added to the draft suite."));

    await page.getByLabel("Query").fill("foghorn");
    await page.getByLabel("Query").press("Enter");
    await page.waitForURL(/q=foghorn/);
    await page.waitForFunction(() => Array.from(document.querySelectorAll("ol.hits .hit-title")).map((h) => h.textContent).sort().join() === "Fog signals,Logbook");
    for (const title of ["Fog signals", "Logbook"]) await hits.filter({ hasText: title }).getByLabel("Mark as relevant").check();
    await page.getByRole("button", { name: "Add as benchmark case (2 relevant)" }).click();
    await visible(page.getByText("Case added to the draft suite."));
    await shoot("16-search-relevance");

    // --- create the suite (k = 1, so one of the two foghorn pages is missed), run it twice -----------
    await page.getByRole("link", { name: "Review draft suite (2 cases)" }).click();
    await headingIs("New benchmark suite");
    const drafted = await page.locator("ol.draft-cases > li").allTextContents();
    expect(drafted[0]).toMatch(/“paraffin fresnel lens”.*Relevant: Lamps/);
    expect(drafted[1]).toMatch(/“foghorn”.*Relevant: (Fog signals, Logbook|Logbook, Fog signals)/);
    await page.getByLabel("Results per query (k)").fill("1");
    await page.getByRole("button", { name: "Create suite" }).click();
    expect(await (await visible(page.locator(".field--invalid .field-error"))).textContent()).toBe("String should have at least 1 character");
    expect(await page.getByLabel("Suite name").getAttribute("aria-invalid")).toBe("true");
    await shoot("17-benchmark-new");
    await page.getByLabel("Suite name").fill("Keeper questions");
    await page.getByRole("button", { name: "Create suite" }).click();
    await headingIs("Keeper questions");
    await visible(page.getByText("Suite created. Run it to get its first scores."));
    await page.getByRole("button", { name: "Run benchmark" }).click();
    const scores = await visible(page.locator("dl.metrics"));
    expect(await fact(scores, "Recall@1").textContent()).toBe("75.0%");
    expect(await fact(scores, "MRR").textContent()).toBe("100.0%");
    expect(await fact(scores, "Hit rate@1").textContent()).toBe("100.0%");
    await page.getByRole("button", { name: "Run benchmark" }).click();
    await page.locator("table.runs tbody tr").nth(1).waitFor();
    expect(await page.locator("svg.chart circle").count()).toBe(6); // 2 runs × 3 lines
    expect(await page.locator("table.runs tbody tr").first().textContent()).toMatch(/^#2.*75\.0%100\.0%/);
    // per case: the foghorn case found one of its two pages and names the one it missed
    await visible(page.getByText("1 of 2 cases missed something."));
    const foghorn = page.locator("table.cases tbody tr", { hasText: "foghorn" });
    expect(await foghorn.locator("td").first().textContent()).toMatch(/Partly found 1 of 2/);
    expect(await foghorn.locator("ul.missed").textContent()).toMatch(/^(Fog signals|Logbook)$/);
    expect(await page.locator("table.cases tbody tr", { hasText: "paraffin" }).locator("td").last().textContent()).toBe("—");
    await shoot("18-benchmark-results");

    // --- tune: two cases are too few, and the service says how many it needs ------------------------
    await page.getByRole("button", { name: "Find a better setting" }).click();
    await visible(page.getByRole("alert").filter({ hasText: /tuning needs at least 5/ }));
    // a suite of six cases on the same collection (made through the API in this session) tunes
    const keeperSuite = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    const sixCases = await page.evaluate(async (suiteId) => {
      const post = (path: string, body: unknown) =>
        fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
      const keeper = await fetch(`/benchmarks/${encodeURIComponent(suiteId)}`).then((r) => r.json());
      const [lens, fog] = keeper.cases.map((c: { relevant_document_ids: string[] }) => c.relevant_document_ids);
      const cases = [
        ...["polish the prisms", "trim the wick", "flame without smoke"].map((query) => ({ query, relevant_document_ids: lens })),
        ...["start the compressor", "two blasts every minute", "passing ships by name"].map((query) => ({ query, relevant_document_ids: fog })),
      ];
      return (await post("/benchmarks", { name: "Lens and fog tuning", collection_id: keeper.collection_id, cases })).id as string;
    }, keeperSuite);
    await page.goto(`/workspace/benchmarks/${encodeURIComponent(sixCases)}`);
    await headingIs("Lens and fog tuning");
    await page.getByRole("button", { name: "Find a better setting" }).click();
    const tuned = await visible(page.locator("table.tune"));
    expect(await tuned.locator("tbody tr").first().textContent()).toMatch(/^Current weighted \(zscore\).*depth 100.*title 2 · headings 1\.5 · body 1\d+\.\d%\d+\.\d%$/);
    expect(await tuned.locator("tbody tr").nth(1).textContent()).toMatch(/^Best found/);
    // lexical search (no model here): 4 tuning cases hold too few relevant hits for a calibration of its own
    await visible(page.getByText(/^Not fitted: the tuning cases' first hits hold \d+ relevant of \d+; a fit needs at least 10 relevant/));
    await shoot("18b-benchmark-tune");

    await nav("Benchmarks");
    await headingIs("Benchmarks");
    const suiteRow = page.locator("table.suites tbody tr", { hasText: "Keeper questions" });
    expect(await suiteRow.textContent()).toMatch(/Keeper's handbook.*2.*2.*75\.0%100\.0%/);
    await visible(page.getByRole("heading", { name: "Public question sets" }));
    // this server has no BEIR files: each set says how to add it instead of offering an import
    await page.getByText("Not on this server: how to add it").first().click(); // a <details> summary
    await visible(page.getByText(/does not download data sets/));
    await shoot("19-benchmarks");

    // --- delete the workspace: the slug typed wrong is refused under the field, then it goes ----------
    await nav("Settings");
    await headingIs("Workspace settings");
    const confirm = page.getByLabel(`Type the workspace slug, ${slug}, to confirm`);
    await confirm.fill(slug.toUpperCase());
    await page.getByRole("button", { name: "Delete workspace" }).click();
    expect(await (await visible(page.locator(".field--invalid .field-error"))).textContent()).toMatch(/The slug is case-sensitive\./);
    await shoot("20-settings");
    await confirm.fill(slug);
    await confirm.press("Enter");
    await page.waitForURL(/\/signup\?deleted=/);
    await headingIs("Create your workspace");
    await visible(page.getByText("Workspace “Lighthouse Keepers” and everything in it has been deleted, and you are signed out."));
    await shoot("21-workspace-deleted");
    expect((await context.request.get("/me")).status()).toBe(401);
    const login = await context.request.post("/auth/login", { data: { email, password: "beam across the bay" } });
    expect(login.status()).toBe(401);
  }, 150_000);
});
