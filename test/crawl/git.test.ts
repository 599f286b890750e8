// The git reader's URL policy: ssh and other transports refused, local repositories only where
// allowed, http(s) through the crawler's SSRF guard with git connecting to exactly the address the
// guard approved and following no redirect. The repository is served over git's dumb HTTP
// protocol from a loopback fixture server.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitMirror, parseGitUrl, wantedFile } from "../../src/crawl/git.js";
import { UrlPolicyError } from "../../src/crawl/errors.js";
import { createUrlPolicy } from "../../src/crawl/url-policy.js";
import { asciidocToMarkdown, rstToMarkdown } from "../../src/ingest/parse/markup-headings.js";

describe("reStructuredText and AsciiDoc sections as Markdown headings", () => {
  it("levels RST sections by the order their adornments appear, overlines included", () => {
    const rst = ["=====", "Guide", "=====", "", "Intro text.", "", "Install", "-------", "", "Run it.", "", "Linux", "~~~~~", "", "Apt.", "", "Usage", "-------", "", "----", "", "Not a title."].join("\n");
    expect(rstToMarkdown(rst).split("\n").filter((l) => l.startsWith("#"))).toEqual(["# Guide", "## Install", "### Linux", "## Usage"]);
    expect(rstToMarkdown(rst)).toContain("----\n\nNot a title.");
  });

  it("turns AsciiDoc section titles into headings, not lines inside listing blocks", () => {
    const adoc = ["= Manual", "", "== Setup", "", "----", "== not a title", "----", "", "=== Details"].join("\n");
    expect(asciidocToMarkdown(adoc).split("\n")).toEqual(["# Manual", "", "## Setup", "", "----", "== not a title", "----", "", "### Details"]);
  });
});

describe("parseGitUrl", () => {
  it("refuses ssh, git:// and ext:: URLs, and credentials", () => {
    for (const url of ["git@github.com:owner/repo.git", "ssh://git@example.com/repo.git", "git://example.com/repo.git", "ext::sh -c touch% /tmp/x", "https://user:pw@example.com/r.git"]) {
      expect(() => parseGitUrl(url, true), url).toThrow(UrlPolicyError);
    }
  });

  it("takes local paths and file:// only where allowed", () => {
    expect(() => parseGitUrl("/srv/repo.git", false)).toThrow(/CRAWL_ALLOW_PRIVATE_NETWORKS/);
    expect(() => parseGitUrl("file:///srv/repo.git", false)).toThrow(/CRAWL_ALLOW_PRIVATE_NETWORKS/);
    expect(parseGitUrl("/srv/repo.git", true)).toEqual({ kind: "local", path: "/srv/repo.git" });
    expect(parseGitUrl("file:///srv/repo.git", true)).toEqual({ kind: "local", path: "/srv/repo.git" });
    expect(parseGitUrl("https://example.com/r.git", false)).toEqual({ kind: "http", url: "https://example.com/r.git" });
  });

  it("indexes the documentation kinds under the include paths", () => {
    expect(wantedFile("docs/a.md", ["docs/"])).toBe(true);
    expect(wantedFile("docs/a.rst", ["docs"])).toBe(true);
    expect(wantedFile("docs-old/a.md", ["docs"])).toBe(false);
    expect(wantedFile("docs/a.js", [])).toBe(false);
    expect(wantedFile("README.adoc", [])).toBe(true);
  });
});

describe("GitMirror over http", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-git-http-"));
  const bare = path.join(root, "repo.git");
  let server: http.Server;
  let port: number;
  const requests: string[] = [];
  let commit: string;

  beforeAll(async () => {
    const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" };
    const work = path.join(root, "work");
    execFileSync("git", ["init", "--quiet", "--initial-branch=main", work], { env });
    fs.writeFileSync(path.join(work, "a.md"), "# A\n");
    execFileSync("git", ["add", "-A"], { cwd: work, env });
    execFileSync("git", ["commit", "--quiet", "-m", "one"], { cwd: work, env });
    execFileSync("git", ["clone", "--quiet", "--bare", work, bare], { env });
    execFileSync("git", ["update-server-info"], { cwd: bare, env });
    commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: work, env, encoding: "utf8" }).trim();
    // dumb HTTP: the bare repository's files as they are; /moved/ redirects to them
    server = http.createServer((req, res) => {
      requests.push(`${req.headers.host} ${req.url}`);
      const url = new URL(req.url!, "http://x");
      if (url.pathname.startsWith("/moved/")) return res.writeHead(302, { location: url.pathname.replace("/moved/", "/repo.git/") }).end();
      const file = path.join(root, decodeURIComponent(url.pathname));
      if (!file.startsWith(bare) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return res.writeHead(404).end();
      res.writeHead(200).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    fs.rmSync(root, { recursive: true, force: true });
  });

  // "repo.invalid" has no DNS answer: only the guard's resolution can lead git to the fixture
  const pinned = (allowPrivateNetworks: boolean) => createUrlPolicy({ allowPrivateNetworks, resolve: async () => [{ address: "127.0.0.1", family: 4 }] });

  it("fetches from the address the guard approved", async () => {
    const mirror = new GitMirror(path.join(root, "mirror-ok"));
    const remote = parseGitUrl(`http://repo.invalid:${port}/repo.git`, false);
    expect(await mirror.fetch(remote, "main", pinned(true))).toBe(commit);
    expect(await mirror.files(commit)).toEqual(["a.md"]);
    expect(requests.some((r) => r.startsWith(`repo.invalid:${port} /repo.git/`))).toBe(true);
  });

  it("refuses a private address before any request, and follows no redirect", async () => {
    requests.length = 0;
    const mirror = new GitMirror(path.join(root, "mirror-refused"));
    await expect(mirror.fetch(parseGitUrl(`http://repo.invalid:${port}/repo.git`, false), "main", pinned(false))).rejects.toThrow(UrlPolicyError);
    expect(requests).toEqual([]);
    await expect(mirror.fetch(parseGitUrl(`http://repo.invalid:${port}/moved/`, false), "main", pinned(true))).rejects.toThrow(/could not fetch/);
    expect(requests.every((r) => r.includes("/moved/"))).toBe(true);
  });
});
