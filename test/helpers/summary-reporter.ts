// Prints one plain closing line "tests: N passed, N failed, N skipped" that CI can read whatever
// the runner's own format, and above it the ten slowest test files: the suite has a time budget
// (8 minutes on a 2-core machine), and this list says where it goes.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === "passed") passed++;
        else if (s === "failed") failed++;
        else skipped++;
      }
    }
    const slowest = modules
      .map((m) => ({ file: m.relativeModuleId, project: m.project.name, ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 10);
    if (slowest.length > 1) {
      process.stdout.write("\nslowest test files:\n");
      for (const s of slowest) process.stdout.write(`  ${(s.ms / 1000).toFixed(1).padStart(6)} s  ${s.file} (${s.project})\n`);
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
