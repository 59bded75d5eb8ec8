// Writes test/durations.json (read by test/sequencer.js) from the JSON output of a whole jest run:
//   npx jest --ci --json --outputFile=jest.json && node tools/test-durations/main.cjs jest.json
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..', '..');
const run = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const durations = Object.fromEntries(
  run.testResults
    .map((t) => [relative(root, t.name), Math.round((t.endTime - t.startTime) / 100) / 10])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(join(root, 'test', 'durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(durations).length} files`);
