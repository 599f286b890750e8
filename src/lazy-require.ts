// A package loaded on its first use instead of at import: for dependencies whose import is costly
// (a tenth to a third of a CPU-second each) and that many processes never use, such as the token
// encoder, linkedom, undici and ioredis. Synchronous (Node's require, which gives a package's
// CommonJS build, or the package itself when it is CommonJS) because their callers are: counting
// tokens, reading HTML, constructing a client. Packages whose callers are asynchronous use a
// dynamic import() instead (the MCP SDK, nodemailer).
import { createRequire } from "node:module";

const requireFromHere = createRequire(import.meta.url);

/** A loader of `pkg`: the first call requires it, later calls return the same module. */
export function lazyRequire<T>(pkg: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(pkg) as T);
}
