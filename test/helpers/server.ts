// Moved to the test kit (test/kit); kept while the crawl suites (test/crawl*) import it here.
export * from "../kit/server.js";
