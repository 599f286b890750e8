// A git repository as a data source, over HTTP against a local bare repository: the first sync
// indexes the wanted files (Markdown, reStructuredText, AsciiDoc, HTML, text) with their path as
// the outermost heading; a commit that changes one file and deletes another re-indexes exactly
// one and deletes one; a sync with no new commit touches nothing. Runs on both stores.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIGHT_ENV, createCollection, startServer, type TestServer } from "../kit/index.js";
import { documentsOf, waitCrawl } from "./helpers.js";

/** A work tree pushing to a bare repository, both in a temporary folder. */
function makeRepo() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-git-"));
  const bare = path.join(root, "origin.git");
  const work = path.join(root, "work");
  const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
  const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env, encoding: "utf8" }).trim();
  git(root, "init", "--quiet", "--bare", "--initial-branch=main", bare);
  git(root, "init", "--quiet", "--initial-branch=main", work);
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
  };
  const commit = (message: string) => {
    git(work, "add", "-A");
    git(work, "commit", "--quiet", "-m", message);
    git(work, "push", "--quiet", bare, "main");
    return git(work, "rev-parse", "HEAD");
  };
  return { root, bare, write, commit, remove: (file: string) => fs.rmSync(path.join(work, file)) };
}

describe("git data sources", () => {
  let s: TestServer;
  let key: string;
  let repo: ReturnType<typeof makeRepo>;
  let sourceId: string;
  let collectionId: string;

  beforeAll(async () => {
    s = await startServer({ ...LIGHT_ENV, CRAWL_ALLOW_PRIVATE_NETWORKS: "true" });
    key = (await s.tenant()).adminKey;
    repo = makeRepo();
    repo.write("docs/guide.md", "# Guide\n\nThe quokka setting turns on hopping.\n");
    repo.write("docs/install.rst", "Install\n=======\n\nRun the wombat installer.\n\nUpgrades\n--------\n\nThe bandicoot upgrade keeps your settings.\n");
    repo.write("docs/manual.adoc", "= Manual\n\nThe numbat switch is on the left.\n");
    repo.write("docs/page.html", "<html><head><title>Page</title></head><body><p>The bilby page explains burrows.</p></body></html>");
    repo.write("docs/notes.txt", "Echidna notes for later.\n");
    repo.write("docs/script.js", "console.log('platypus');\n");
    repo.write("drafts/skip.md", "# Skip\n\nThe dingo draft is not indexed.\n");
    repo.commit("first");
  });

  afterAll(async () => {
    await s?.close();
    if (repo) fs.rmSync(repo.root, { recursive: true, force: true });
  });

  const sync = async () => {
    const r = await s.call("POST", `/data-sources/${sourceId}/sync`, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    return waitCrawl(s, key, r.body.id);
  };
  const search = async (query: string) => (await s.call("POST", "/search", { key, json: { collection_id: collectionId, query, top_k: 5 } })).body.results as any[];

  it("refuses ssh URLs and a missing url with 400", async () => {
    for (const configuration of [{ url: "git@github.com:owner/repo.git" }, { url: "ssh://git@example.com/repo.git" }, {}]) {
      const r = await s.call("POST", "/data-sources", { key, json: { name: "Repo", source_type: "git", configuration } });
      expect(r.status, JSON.stringify(configuration)).toBe(400);
      expect(r.body.detail).toMatch(/ssh|configuration\.url/);
    }
  });

  it("the first sync indexes the wanted files with their path as the outermost heading", async () => {
    const r = await s.call("POST", "/data-sources", { key, json: { name: "Repo", source_type: "git", configuration: { url: repo.bare, branch: "main", paths: ["docs/"] } } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    sourceId = r.body.id;
    collectionId = await createCollection(s, key, [sourceId]);
    const job = await sync();
    expect(job).toMatchObject({ status: "completed", pages_new: 5, pages_changed: 0, pages_removed: 0, git_commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const docs = await documentsOf(s, key, sourceId);
    expect(docs.map((d) => d.source).sort()).toEqual(["docs/guide.md", "docs/install.rst", "docs/manual.adoc", "docs/notes.txt", "docs/page.html"]);
    expect(docs.every((d) => d.status === "indexed" && d.source_type === "git")).toBe(true);
    const [hit] = await search("quokka");
    expect(hit.heading_path[0]).toBe("docs/guide.md");
    // reStructuredText sections are headings under the path (the first, the title, is the document's title)
    const [upgrades] = await search("bandicoot");
    expect(upgrades.heading_path).toEqual(["docs/install.rst", "Upgrades"]);
    expect(upgrades.title).toBe("Install");
    expect(await search("dingo")).toEqual([]);
    expect(await search("platypus")).toEqual([]);
  });

  it("a commit that changes one file and deletes another re-indexes exactly one and deletes one", async () => {
    const before = new Map((await documentsOf(s, key, sourceId)).map((d) => [d.source, d]));
    repo.write("docs/guide.md", "# Guide\n\nThe kangaroo setting turns on hopping.\n");
    repo.remove("docs/notes.txt");
    repo.write("docs/script.js", "console.log('changed, and not indexed');\n");
    const commit = repo.commit("second");
    const job = await sync();
    expect(job).toMatchObject({ status: "completed", pages_new: 0, pages_changed: 1, pages_unchanged: 0, pages_removed: 1, git_commit: commit });
    const after = await documentsOf(s, key, sourceId);
    expect(after.map((d) => d.source).sort()).toEqual(["docs/guide.md", "docs/install.rst", "docs/manual.adoc", "docs/page.html"]);
    // the untouched files were not indexed again
    for (const d of after.filter((x) => x.source !== "docs/guide.md")) expect(d.updated_at).toBe(before.get(d.source).updated_at);
    expect((await search("kangaroo"))[0].heading_path[0]).toBe("docs/guide.md");
    expect(await search("quokka")).toEqual([]);
    expect(await search("echidna")).toEqual([]);
  });

  it("a sync without a new commit changes nothing, and GET /crawl/{id} shows the sync", async () => {
    const job = await sync();
    expect(job).toMatchObject({ status: "completed", pages_new: 0, pages_changed: 0, pages_removed: 0, pages_crawled: 0 });
    expect((await s.call("GET", `/crawl/${job.id}`, { key })).body.data_source_id).toBe(sourceId);
    // a git source syncs on a schedule like a crawled site
    expect((await s.call("PUT", `/data-sources/${sourceId}/schedule`, { key, json: { schedule: "daily" } })).status).toBe(200);
  });

  it("deleting the source deletes its mirror", async () => {
    const me = (await s.call("GET", "/me", { key })).body.tenant.id;
    const mirror = path.join(s.dataDir, "git", me, sourceId);
    expect(fs.existsSync(mirror)).toBe(true);
    expect((await s.call("DELETE", `/data-sources/${sourceId}`, { key })).status).toBe(204);
    expect(fs.existsSync(mirror)).toBe(false);
  });

  it("a branch that does not exist fails the sync with the reason", async () => {
    const r = await s.call("POST", "/data-sources", { key, json: { name: "Other", source_type: "git", configuration: { url: repo.bare, branch: "nope" } } });
    sourceId = r.body.id;
    const job = await sync();
    expect(job.status).toBe("failed");
    expect(job.error).toContain("branch 'nope'");
  });
});
