// Evaluation: how well and how fast Quarry searches. Benchmark suites and their runs, per-collection
// tuning and calibration fits, the public BEIR question sets, the `quarry bench` and `quarry import`
// commands (bench/), the labs (labs/, run with tsx) and the documentation question sets
// (question-sets/). The rest of src/ comes in through two doors (npm run health:boundaries checks
// it; tests may reach inside):
// - this file, the services the app serves (benchmark suites, tuning, BEIR imports), which sit
//   beside services/ in the layers;
// - commands.ts, the command line's bench and import, which sit above http/ (the bench starts the
//   app to measure it), so the app never loads them.
export { createBenchmarkService, TUNE_JOB_KIND, type BenchmarkService } from "./benchmarks/benchmarks.js";
export { beirDataDir, createIndustryBenchmarkService, type IndustryBenchmarkService } from "./benchmarks/industry-benchmarks.js";
export { createBeirImporter, missingBeirFiles } from "./beir/beir-import.js";
export { findDataset } from "./beir/beir-catalog.js";
export { createAdapter, ADAPT_JOB_KIND, AUTO_MIN_DOCUMENTS, type Adapter } from "./adaptation/adapt-service.js";
export { ADAPT_RUN_JOB_KIND } from "./adaptation/adapt-jobs.js";
