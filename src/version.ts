// The release version (package.json's), in a module of its own so the CLI can print it without
// loading the runtime.
export const VERSION = "0.2.0";
