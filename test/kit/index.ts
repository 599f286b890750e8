// The test kit: servers (inject() by default, a socket on request), tenants with a key of every
// scope, the error-shape checks, and content fixtures. Import from here, not from the modules.
export { startServer, PLATFORM_KEY, jobsInDatabase, databaseUrlOf, type TestServer, type StartOptions, type CallOptions } from "./server.js";
export { useServer, useTenant, createTenant, makeKey, type UseServerOptions, type TestTenant, type KeyScope } from "./lifecycle.js";
export { expectDetail, expect422, issueAt, type Issue, type Res } from "./errors.js";
export { createSource, createCollection, indexedCollection, upload, waitIndexed } from "./content.js";
export { LIGHT_ENV, ISO_DATE_TIME, noModelEnv } from "./env.js";
export { rawRequest } from "./raw.js";
export { injectCaller, fetchCaller, type Call, type CallResult } from "./call.js";
