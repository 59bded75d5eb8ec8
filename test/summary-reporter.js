// Prints the plain closing lines CI reads: "tests: N passed, N failed[, N skipped]" and how many tests ran on a real
// kube-apiserver (suites tagged "[real-apiserver]" in their describe name, see test/envtest).
const REAL = '[real-apiserver]';

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stderr.write(
      `\ntests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
    const real = { passed: 0, failed: 0, skipped: 0, suites: new Set() };
    for (const file of results.testResults) {
      for (const t of file.testResults) {
        if (!t.ancestorTitles.some((a) => a.includes(REAL))) continue;
        real.suites.add(file.testFilePath);
        if (t.status === 'passed') real.passed++;
        else if (t.status === 'failed') real.failed++;
        else real.skipped++;
      }
    }
    process.stderr.write(
      `real apiserver: ${real.passed} passed, ${real.failed} failed, ${real.skipped} skipped (${real.suites.size} files)\n`,
    );
    if (real.skipped) {
      // One line instead of one per suite: how to get the binaries (CI sets ENVTEST_REQUIRED, so there they fail instead).
      process.stderr.write(
        `real apiserver: ${real.skipped} tests skipped without Kubernetes binaries: set KUBEBUILDER_ASSETS to a folder with ` +
          'kube-apiserver and etcd (`setup-envtest use -p path 1.32.x`; KUBEBUILDER_ASSETS_1_28 / _1_36 for the oldest ' +
          'and newest versions; docs/testing.md)\n',
      );
    }
  }
}
module.exports = SummaryReporter;
