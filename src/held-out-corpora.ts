// Text this project keeps for evaluation only: the documentation its question sets are built
// from and the BEIR data sets of its benchmarks. Whatever trains or tunes on text (the model's
// pair miner) refuses these, by Debian package and by path; the lists live here, beside neither
// the miner nor a benchmark, so that the training code names no evaluation corpus and one rule
// serves every reader. docs/model.md ("Held-out sources") lists them in prose.

/** Package names held out for evaluation: never training text. */
export const HELD_OUT_PACKAGES = [/^postgresql/, /^libpq/, /^nodejs/, /^libnode/, /^libreoffice/];
/** Paths held out whatever package installed them (npm READMEs and data directories included). */
export const HELD_OUT_PATHS = [/postgres/i, /\/nodejs\//, /libreoffice/i, /\bbeir\b/i, /scifact/i];

export function heldOutPackage(name: string): boolean {
  return HELD_OUT_PACKAGES.some((re) => re.test(name));
}

export function heldOutPath(file: string): boolean {
  return HELD_OUT_PATHS.some((re) => re.test(file));
}
