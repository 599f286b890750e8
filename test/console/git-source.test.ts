// The console's git repositories panel on a collection's page, in Chromium (playwright-core and
// Debian's chromium, like console.test.ts): a repository added with a branch and paths is synced,
// its files appear as documents, and "Sync now" picks up a commit.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumPath } from "../../src/crawl/render.js";
import { openConsole, shoot, type ConsoleSession } from "./helpers.js";

describe.skipIf(!chromiumPath())("console: git repositories of a collection in Chromium", () => {
  let session: ConsoleSession;
  let context: BrowserContext;
  let page: Page;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-console-git-"));
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" };
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env });
  const work = path.join(root, "work");
  const bare = path.join(root, "handbook.git");
  const commit = (files: Record<string, string>) => {
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(work, f)), { recursive: true });
      fs.writeFileSync(path.join(work, f), text);
    }
    git(work, "add", "-A");
    git(work, "commit", "--quiet", "-m", "c");
    git(work, "push", "--quiet", bare, "main");
  };

  beforeAll(async () => {
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", bare);
    git(root, "init", "--quiet", "--initial-branch=main", work);
    commit({ "docs/kilns.md": "# Kilns\n\nCone six is the usual glaze firing.\n", "src/app.js": "1;\n" });
    session = await openConsole({ REQUIRE_EMAIL_VERIFICATION: "false", CRAWL_ALLOW_PRIVATE_NETWORKS: "true" });
    ({ context, page } = session);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("adds a repository with its branch and paths, syncs it, and syncs again after a commit", async () => {
    const signup = await context.request.post("/auth/signup", { data: { email: `git.${process.pid}.${Date.now()}@example.com`, password: "glaze and fire twice", workspace_name: "Pottery" } });
    expect(signup.status()).toBe(201);
    const collection = (await (await context.request.post("/collections", { data: { name: "Handbook" } })).json()).id as string;
    await page.goto(`/workspace/collections/${collection}`);
    await page.getByRole("heading", { level: 2, name: "Git repositories" }).waitFor();
    await page.getByLabel("Repository URL").fill(bare);
    await page.getByLabel("Branch").fill("main");
    await page.getByLabel("Paths to include").fill("docs/");
    await page.getByRole("button", { name: "Add and sync" }).click();
    await page.getByText("Added “handbook”; its first sync has started.").waitFor();
    const docs = page.locator("table.documents");
    await docs.getByText("docs/kilns.md").first().waitFor({ timeout: 30_000 });
    await shoot(page, "31-git-source");
    commit({ "docs/glazes.md": "# Glazes\n\nCeladon needs reduction.\n" });
    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByText(/Syncing “handbook”/).waitFor();
    await docs.getByText("docs/glazes.md").first().waitFor({ timeout: 30_000 });
    expect(await docs.getByText("src/app.js").count()).toBe(0);
  }, 120_000);
});
