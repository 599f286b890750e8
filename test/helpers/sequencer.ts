// The order test files start in: the longest suites first, so that with three worker slots none of
// them starts last and leaves the other slots idle at the end of the run. vitest orders by the
// durations it cached in node_modules/.vite, which a fresh clone (CI) does not have; this list is
// the slowest files of a run on a fresh clone (test/helpers/summary-reporter.ts prints the ten
// slowest; a JSON report gives them all), kept by hand.
import { BaseSequencer, type TestSpecification } from "vitest/node";

const LONGEST = [
  "test/jobs/process-split.test.ts",
  "test/ops/cli.test.ts",
  "test/scaleout/schedule-processes.test.ts",
  "test/scaleout/two-by-two.test.ts",
  "test/benchmarks/scifact.test.ts",
  "test/console/crawl-bench.test.ts",
  "test/scaleout/no-shared-disk.test.ts",
  "test/console/console.test.ts",
  "test/console/search-controls.test.ts",
  "test/search-api/lexical-exactness.test.ts",
  "test/content/durability.test.ts",
  "test/jobs/bullmq-queue.test.ts",
  "test/crawl-api/crawl.test.ts",
  "test/embed/static.test.ts",
];

const rank = (s: TestSpecification): number => {
  const i = LONGEST.findIndex((f) => s.moduleId.endsWith(f));
  return i < 0 ? LONGEST.length : i;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // a stable sort: the rest keep vitest's own order (cached durations, else size)
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}
