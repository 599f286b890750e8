// Moved to the test kit (test/kit); kept so suites that still import it here keep working.
export * from "../kit/content.js";
