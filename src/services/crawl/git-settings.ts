// The settings of a git data source (configuration `url`, `branch`, `paths`), checked where the
// source is created and again by each sync.
import type { Json } from "../../store/content-types.js";
import { normalizeRepoPaths, parseGitUrl, UrlPolicyError } from "../../crawl/index.js";
import { badRequest } from "../errors.js";

export interface GitSettings {
  url: string;
  /** null: the remote's default branch */
  branch: string | null;
  paths: string[];
}

const BRANCH = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;

/** A git source's configuration, checked (400 naming what to change) and normalised. */
export function gitSettings(configuration: Json, allowLocal: boolean): GitSettings {
  const c = (configuration ?? {}) as Record<string, unknown>;
  if (typeof c.url !== "string" || !c.url) throw badRequest("A git data source needs configuration.url: the repository's https:// URL.");
  try {
    parseGitUrl(c.url, allowLocal);
  } catch (err) {
    if (err instanceof UrlPolicyError) throw badRequest(err.message);
    throw err;
  }
  if (c.branch !== undefined && c.branch !== null && (typeof c.branch !== "string" || !BRANCH.test(c.branch))) {
    throw badRequest("configuration.branch must be a branch name such as 'main' (letters, digits, '.', '_', '-', '/'); leave it out for the repository's default branch.");
  }
  if (c.paths !== undefined && c.paths !== null && (!Array.isArray(c.paths) || c.paths.some((p) => typeof p !== "string") || c.paths.length > 100)) {
    throw badRequest("configuration.paths must be a list of at most 100 folder or file paths inside the repository, such as [\"docs/\"].");
  }
  return { url: c.url, branch: (c.branch as string | null | undefined) ?? null, paths: normalizeRepoPaths(c.paths as string[] | undefined) };
}

/** The configuration a git source is stored with. */
export const gitConfiguration = (s: GitSettings): Json => ({ url: s.url, branch: s.branch, paths: s.paths });
