// The web console in a real browser (Debian's Chromium driven by playwright-core, as the crawler's
// render_js does): a new user signs up, opens the verification link from the mail in
// DATA_DIR/outbox, creates a collection, uploads files and sees them indexed, searches, copies a
// retrieve text block, creates and revokes an API key, logs out, and resets the password through
// the emailed link. Assertions are on what a person sees. Each screen is captured at 1280 px into
// test-output/screenshots/ (git-ignored), and checked for sideways scrolling at 390 px.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { chromiumPath } from "../../src/crawl/render.js";
import type { TestServer } from "../kit/index.js";
import { openConsole, type ConsoleSession, linkIn, outbox, shoot as shootPage } from "./helpers.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const PASSWORD = "tide pools at dawn";
const NEW_PASSWORD = "kiln cone six glaze";

describe.skipIf(!chromiumPath())("web console in Chromium", () => {
  let s: TestServer;
  let session: ConsoleSession | undefined;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    session = await openConsole();
    ({ s, context, page } = session);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: s.url });
  }, 180_000);

  afterAll(() => session?.close());

  /** waits for the screen's h1 (screens render their heading once their data has loaded) */
  const headingIs = (name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
  const visible = async (l: Locator) => {
    await l.first().waitFor({ state: "visible" });
    return l.first();
  };
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

  const shoot = (name: string) => shootPage(page, name);

  it("signs up, verifies, uploads, searches, retrieves, manages keys, logs out and resets the password", async () => {
    const mail = outbox(s.dataDir);
    const email = `owner.${process.pid}.${Date.now()}@example.com`;

    // --- sign up: the console at / sends a visitor to log in; from there, to sign up ----------------
    await page.goto("/");
    await page.waitForURL("**/login");
    await headingIs("Log in");
    await page.getByRole("link", { name: "Create a workspace" }).click();
    await page.waitForURL("**/signup");
    await headingIs("Create your workspace");

    // the API's 422 detail shows under the field it names
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByLabel("Workspace name").fill("Shoreline Notes");
    await page.getByRole("button", { name: "Sign up" }).click();
    const pwError = await visible(page.locator(".field--invalid .field-error"));
    expect(await pwError.textContent()).toBe("String should have at least 10 characters");
    expect(await page.getByLabel("Password", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByRole("alert").textContent()).toMatch(/see the messages below them/);
    await shoot("01-signup");

    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL("**/workspace");
    await headingIs("Shoreline Notes");
    expect(await (await visible(page.getByText("Verify your email address."))).isVisible()).toBe(true);

    // --- verify: the link in the mail opens the console, which verifies the address -------------------
    const verifyMail = await mail(/verify/i);
    const verifyLink = linkIn(verifyMail, s.url, "verify-email");
    await page.goto(verifyLink);
    await visible(page.getByText("Email verified."));
    expect(await page.getByRole("status").first().textContent()).toMatch(/is verified/);
    await shoot("02-verify-email");
    await page.getByRole("link", { name: "Go to your workspace" }).click();
    await page.waitForURL("**/workspace");
    await visible(page.getByText("Plan: free"));
    expect(await page.getByText("Verify your email address.").count()).toBe(0);

    // --- collections: create one with an upload source, upload two documents and a file it refuses ----
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Collections" }).click();
    await headingIs("Collections");
    await page.getByRole("button", { name: "Create collection" }).click();
    expect(await (await visible(page.locator(".field-error"))).textContent()).toBe("String should have at least 1 character");
    await page.getByLabel("Name", { exact: true }).fill("Field notes");
    await page.getByLabel("Description (optional)").fill("Shore walks and pottery");
    await page.getByRole("button", { name: "Create collection" }).click();
    await page.waitForURL(/\/workspace\/collections\/col_/);
    await headingIs("Field notes");
    await visible(page.getByText("Collection created. Add files below."));
    expect(await page.getByText("Into data source").textContent()).toContain("Field notes uploads");

    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    await page.getByLabel("Choose files, or drop them here").setInputFiles([
      ...["tide-pools.md", "kiln-firing.md"].map((name) => ({ name, mimeType: "text/markdown", buffer: fs.readFileSync(path.join(FIXTURES, name)) })),
      { name: "photo.png", mimeType: "image/png", buffer: png },
    ]);
    const outcomes = page.getByRole("list", { name: "Upload results" });
    await visible(outcomes.getByText("Unsupported file type (415)"));
    const outcomeTexts = await outcomes.getByRole("listitem").allTextContents();
    expect(outcomeTexts).toHaveLength(3);
    expect(outcomeTexts.find((t) => t.startsWith("tide-pools.md"))).toMatch(/Accepted: queued for indexing\./);
    expect(outcomeTexts.find((t) => t.startsWith("kiln-firing.md"))).toMatch(/Accepted: queued for indexing\./);
    expect(outcomeTexts.find((t) => t.startsWith("photo.png"))).toMatch(/Unsupported file type \(415\): "photo\.png" is not a supported file type.*Supported: PDF/);

    // files can be dropped on the upload area too; an empty one is refused with the API's reason
    const dropped = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([""], "empty-notes.txt", { type: "text/plain" }));
      return dt;
    });
    await page.locator(".dropzone").dispatchEvent("drop", { dataTransfer: dropped });
    await visible(outcomes.getByText(/empty-notes\.txt/));
    await visible(outcomes.getByText('Refused (422): "empty-notes.txt" is empty (0 bytes); there is nothing to index.'));

    // the documents list follows them until they are indexed
    const docs = page.locator("table.documents tbody tr");
    await page.waitForFunction(
      () => {
        const rows = Array.from(document.querySelectorAll("table.documents tbody tr"));
        return rows.length === 2 && rows.every((r) => r.querySelector(".status")?.textContent === "Indexed");
      },
      undefined,
      { timeout: 60_000 },
    );
    const rows = await docs.allTextContents();
    expect(rows.some((r) => r.includes("Tide pool field guide"))).toBe(true);
    expect(rows.some((r) => r.includes("Kiln firing schedule"))).toBe(true);
    await shoot("03-collection-upload");

    // --- home: plan usage as bars, the collection with its counts ------------------------------------
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Home" }).click();
    await visible(page.getByText("2 documents · 2 indexed"));
    expect(await page.getByRole("progressbar", { name: "Documents" }).getAttribute("aria-valuetext")).toBe("2 of 1,000");
    expect(await page.getByRole("progressbar", { name: "Data sources" }).getAttribute("aria-valuetext")).toBe("1 of 5");
    expect(await page.getByRole("progressbar", { name: "Queries this month" }).getAttribute("aria-valuetext")).toBe("0 of 5,000");
    await shoot("04-workspace-home");

    // --- search playground: the expected document first, with highlights, heading path and score ------
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Search" }).click();
    await headingIs("Search playground");
    expect(await page.getByLabel("Collection").locator("option:checked").textContent()).toMatch(/^Field notes/);
    await page.getByLabel("Query").fill("anemone tentacles when the tide goes out");
    await page.getByLabel("Query").press("Enter"); // keyboard only
    const hits = page.locator("ol.hits > li");
    await hits.first().waitFor();
    expect(await hits.first().locator(".hit-title").textContent()).toBe("Tide pool field guide");
    expect(await hits.first().locator(".heading-path").textContent()).toContain("Sea anemones");
    expect(await hits.first().locator(".score").textContent()).toMatch(/^score \d+\.\d{3}$/);
    const marks = await hits.first().locator("mark").allTextContents();
    expect(marks.map((m) => m.toLowerCase())).toContain("tentacles");
    expect(page.url()).toMatch(/\/workspace\/search\?collection=col_.*&q=anemone/);
    await shoot("05-search");

    // --- retrieve: contexts with citations and the ready-to-paste text, copied ----------------------
    await page.getByRole("tab", { name: "Search" }).focus();
    await page.keyboard.press("ArrowRight"); // tabs follow the ARIA pattern
    const paste = await visible(page.getByLabel("Text block to paste into a prompt"));
    const pasteText = (await paste.textContent())!;
    expect(pasteText).toMatch(/^\[1\] Tide pool field guide/);
    expect(await page.locator("ol.contexts > li").first().locator(".citation").textContent()).toBe("[1]");
    expect(await page.getByRole("tab", { name: "Retrieve" }).getAttribute("aria-selected")).toBe("true");
    await page.getByRole("button", { name: "Copy text" }).click();
    await visible(page.getByText("Copied to the clipboard."));
    expect(await clipboard()).toBe(pasteText);
    await shoot("06-retrieve");

    // --- API keys: create with scopes, secret once with a copy button, list, revoke -------------------
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "API keys" }).click();
    await headingIs("API keys");
    await page.getByLabel("Name", { exact: true }).fill("Docs site search");
    expect(await page.getByLabel(/^search/).isChecked()).toBe(true);
    await page.getByLabel("Expires after (days, optional)").fill("9999");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await (await visible(page.locator(".field-error"))).textContent()).toMatch(/less than or equal to 3650/);
    await page.getByLabel("Expires after (days, optional)").fill("");
    await page.getByRole("button", { name: "Create key" }).click();
    await visible(page.getByText("Copy this key now."));
    const secret = (await page.getByLabel("The new API key").textContent())!;
    expect(secret).toMatch(/^qk_/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await visible(page.getByText("Copied to the clipboard."));
    expect(await clipboard()).toBe(secret);
    const row = page.locator("table.keys tbody tr", { hasText: "Docs site search" });
    expect(await row.locator(".status").textContent()).toBe("Active");
    expect(await row.textContent()).toContain(secret.slice(0, 11));
    await shoot("07-api-keys");
    // the key works, until it is revoked
    expect((await s.call("GET", "/collections", { key: secret })).status).toBe(200);
    await page.getByRole("button", { name: "I have stored it, hide it" }).click();
    expect(await page.getByLabel("The new API key").count()).toBe(0);
    await row.getByRole("button", { name: "Revoke Docs site search" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).waitFor();
    await page.keyboard.press("Enter"); // the confirmation has the focus
    await page.waitForFunction(() => Array.from(document.querySelectorAll("table.keys tbody tr")).some((r) => r.textContent?.includes("Docs site search") && r.querySelector(".status")?.textContent === "Revoked"));
    expect(await row.getByRole("button", { name: /Revoke/ }).count()).toBe(0);
    expect((await s.call("GET", "/collections", { key: secret })).status).toBe(401);

    // --- log out --------------------------------------------------------------------------------------
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL("**/login?logged_out=1");
    await visible(page.getByText("You are logged out."));
    await page.goto("/workspace/api-keys");
    await page.waitForURL(/\/login\?next=%2Fworkspace%2Fapi-keys/);
    await headingIs("Log in");
    await shoot("08-logged-out");

    // --- forgot and reset the password through the emailed link, then log in with it ------------------
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Send the link" }).click();
    await visible(page.getByRole("status").filter({ hasText: /./ }));
    await shoot("09-forgot-password");
    const resetLink = linkIn(await mail(/reset|password/i), s.url, "reset-password");
    await page.goto(resetLink);
    await headingIs("Choose a new password");
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Repeat the new password").fill("something else");
    await page.getByRole("button", { name: "Change password" }).click();
    await visible(page.getByText("The two passwords differ."));
    await page.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await shoot("10-reset-password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.waitForURL("**/login?reset=1");
    await visible(page.getByText("Your password has been changed."));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Log in" }).click();
    expect(await (await visible(page.getByRole("alert"))).textContent()).toMatch(/./);
    await page.getByLabel("Password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel("Password", { exact: true }).press("Enter");
    await page.waitForURL("**/workspace");
    await headingIs("Shoreline Notes");
  }, 240_000);
});
