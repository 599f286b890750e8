/** "Acme Docs (EU)" -> "acme-docs-eu": lower-case ASCII words joined by hyphens, at most 80 chars. */
export function slugify(name: string, maxLength = 80): string {
  const s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, maxLength)
    .replace(/-+$/g, "");
  return s || "workspace";
}

/**
 * How often a creation derives its slug again after a concurrent creation (any API process) took
 * it between the check and the insert: each rival costs at most one retry.
 */
export const MAX_SLUG_RETRIES = 20;

/** The first of slug, slug-2, slug-3 ... that `taken` says is free. */
export async function uniqueSlug(base: string, taken: (s: string) => Promise<boolean>): Promise<string> {
  if (!(await taken(base))) return base;
  for (let i = 2; ; i++) {
    const suffix = `-${i}`;
    const candidate = `${base.slice(0, 80 - suffix.length).replace(/-+$/, "")}${suffix}`;
    if (!(await taken(candidate))) return candidate;
  }
}
