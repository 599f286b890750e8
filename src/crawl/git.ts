// A git repository as a source of documents, read with the system `git` (storage-free, like the
// rest of crawl/). A repository is mirrored once per data source into a bare repository under the
// service's cache; each sync fetches one branch and says which files the new commits changed.
//
// The URL policy: http(s) URLs pass the crawler's SSRF guard, and git then connects to exactly the
// addresses the guard approved (http.curloptResolve) without following redirects. Local paths and
// file:// URLs read the server's own disk, so they count as private: only where the deployment
// allows private networks. ssh and every other transport are refused: the service holds no
// per-source credentials and must never authenticate with the server's own keys.

import { execFile } from "node:child_process";
import fsp from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { UrlPolicyError } from "./errors.js";
import type { UrlGuard } from "./url-policy.js";

const run = promisify(execFile);

/** Largest file read from a repository; larger ones are left out of the index. */
export const GIT_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** A fetch that takes longer than this fails the sync. */
const FETCH_TIMEOUT_MS = 10 * 60_000;

/**
 * The document kind of each indexed file extension; other files are left out. reStructuredText
 * and AsciiDoc are stored as Markdown of the same text, their sections as headings.
 */
const KIND_OF_EXT: Record<string, "markdown" | "html" | "text"> = {
  ".md": "markdown",
  ".markdown": "markdown",
  ".mdx": "markdown",
  ".html": "html",
  ".htm": "html",
  ".rst": "markdown",
  ".adoc": "markdown",
  ".asciidoc": "markdown",
  ".txt": "text",
};

/** The document kind of a repository file, or null when its kind is not indexed. */
export function gitFileKind(file: string): "markdown" | "html" | "text" | null {
  return KIND_OF_EXT[path.posix.extname(file).toLowerCase()] ?? null;
}

/** Include paths as repository prefixes ("docs/" matches docs/a.md, not docs-old/a.md). */
export function normalizeRepoPaths(paths: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  for (const raw of paths ?? []) {
    const p = raw.trim().replace(/^\.?\/+/, "");
    if (p) out.add(p);
  }
  return [...out];
}

/** Whether a file is indexed: a kind we index, under one of the paths (all when none). */
export function wantedFile(file: string, paths: readonly string[]): boolean {
  if (!gitFileKind(file)) return false;
  if (paths.length === 0) return true;
  return paths.some((p) => file === p || file.startsWith(p.endsWith("/") ? p : `${p}/`));
}

export type GitRemote = { kind: "http"; url: string } | { kind: "local"; path: string };

/**
 * What the URL is, or a UrlPolicyError in words a user can act on. Syntax only: http(s) URLs
 * still go through the guard (`approveRemote`) before each fetch.
 */
export function parseGitUrl(raw: string, allowLocal: boolean): GitRemote {
  const refuse = (message: string): never => {
    throw new UrlPolicyError("unsupported_scheme", message, raw);
  };
  const local = () =>
    allowLocal ? null : refuse("Repositories on the server's own disk are refused on this deployment (an operator can allow them with CRAWL_ALLOW_PRIVATE_NETWORKS=true); use an https:// URL.");
  if (raw.startsWith("/")) return local() ?? { kind: "local", path: path.resolve(raw) };
  if (/^[\w.-]+@[\w.-]+:/.test(raw)) refuse("ssh repositories are not supported: the service holds no credentials for them; use the repository's https:// URL.");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("The repository URL is not valid; use an https:// URL such as https://github.com/owner/repo.git.");
  }
  if (url.protocol === "file:") return local() ?? { kind: "local", path: path.resolve(decodeURIComponent(url.pathname)) };
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return refuse(`${url.protocol.replace(/:$/, "")} repositories are not supported: the service holds no credentials for them; use the repository's https:// URL.`);
  }
  if (url.username || url.password) throw new UrlPolicyError("credentials_in_url", "Put no credentials in the repository URL; only public repositories can be synced.", raw);
  return { kind: "http", url: url.href };
}

/** `-c` settings for a fetch from this remote: only its transport, no redirects, pinned addresses. */
async function transportSettings(remote: GitRemote, guard: UrlGuard): Promise<string[]> {
  const common = ["-c", "protocol.allow=never", "-c", "credential.helper=", "-c", "core.askPass="];
  if (remote.kind === "local") return [...common, "-c", "protocol.file.allow=always"];
  const { url, addresses } = await guard.check(remote.url);
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const pinned = addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(",");
  const scheme = url.protocol.replace(/:$/, "");
  return [...common, "-c", `protocol.${scheme}.allow=always`, "-c", "http.followRedirects=false", "-c", `http.curloptResolve=${host}:${port}:${pinned}`];
}

/** A file change between two commits; a rename is a deletion and an addition. */
export interface GitChanges {
  changed: string[];
  deleted: string[];
}

/** The bare mirror of one source's repository. */
export class GitMirror {
  constructor(readonly dir: string) {}

  private async git(args: string[], opts: { timeout?: number; maxBuffer?: number } = {}): Promise<string> {
    const env = { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C" };
    const { stdout } = await run("git", ["--git-dir", this.dir, ...args], { env, timeout: opts.timeout ?? 60_000, maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024 });
    return stdout;
  }

  /** Fetches the branch (creating the mirror on first use) and returns its commit. */
  async fetch(remote: GitRemote, branch: string, guard: UrlGuard): Promise<string> {
    await fsp.mkdir(this.dir, { recursive: true });
    await run("git", ["init", "--quiet", "--bare", this.dir], { env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" } });
    const settings = await transportSettings(remote, guard);
    const from = remote.kind === "local" ? remote.path : remote.url;
    try {
      await this.git([...settings, "fetch", "--quiet", "--no-tags", "--", from, `+refs/heads/${branch}:refs/quarry/head`], { timeout: FETCH_TIMEOUT_MS });
    } catch (err) {
      const stderr = String((err as { stderr?: string }).stderr ?? "").trim();
      throw new Error(`git could not fetch branch '${branch}' of the repository: ${stderr.split("\n").pop() || String(err)}`);
    }
    return (await this.git(["rev-parse", "refs/quarry/head^{commit}"])).trim();
  }

  /** Whether the mirror holds this commit (false after a force-push dropped it, or a new mirror). */
  async has(commit: string): Promise<boolean> {
    try {
      await this.git(["cat-file", "-e", `${commit}^{commit}`]);
      return true;
    } catch {
      return false;
    }
  }

  /** Every file of the commit's tree. */
  async files(commit: string): Promise<string[]> {
    return (await this.git(["ls-tree", "-r", "-z", "--name-only", commit])).split("\0").filter(Boolean);
  }

  /** The files that differ between two commits (`git diff`), renames split into delete and add. */
  async diff(from: string, to: string): Promise<GitChanges> {
    const fields = (await this.git(["diff", "--name-status", "-z", "--no-renames", from, to])).split("\0");
    const out: GitChanges = { changed: [], deleted: [] };
    for (let i = 0; i + 1 < fields.length; i += 2) {
      (fields[i] === "D" ? out.deleted : out.changed).push(fields[i + 1]);
    }
    return out;
  }

  /** The file's bytes at the commit, or null when it is larger than GIT_MAX_FILE_BYTES. */
  async read(commit: string, file: string): Promise<Buffer | null> {
    const size = Number((await this.git(["cat-file", "-s", `${commit}:${file}`])).trim());
    if (size > GIT_MAX_FILE_BYTES) return null;
    const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" };
    const { stdout } = await run("git", ["--git-dir", this.dir, "cat-file", "blob", `${commit}:${file}`], { env, encoding: "buffer", maxBuffer: GIT_MAX_FILE_BYTES + 1024 });
    return stdout;
  }
}
