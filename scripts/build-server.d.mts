/** Builds `root`/src into `outDir` (a child of `root`), replacing what was there. */
export function buildServer(root: string, outDir: string): Promise<void>;
