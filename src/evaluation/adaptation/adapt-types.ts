// The queue job kind of a collection's query-model adaptation (adapt-service.ts handles it on the
// tune queue), apart so the tuning can queue one without importing the adapter.
export const ADAPT_JOB_KIND = "adapt";
