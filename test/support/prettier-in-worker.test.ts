import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The module jest maps `prettier` to (prettier-in-worker.cjs) formats as prettier does, holds its process while a call
 * waits for the answer, and then lets it end by itself: its worker thread must not hold the jest worker open at the
 * end of a run (jest force-exits such a worker after 500 ms: "A worker process has failed to exit gracefully").
 */
test('a call is answered before its process ends, and the process then ends by itself', () => {
  const script = `
    const p = require(${JSON.stringify(join(__dirname, 'prettier-in-worker.cjs'))});
    p.format('const   a = {b:1}', { parser: 'typescript' }).then((out) => process.stdout.write(out));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(run.error).toBeUndefined(); // ETIMEDOUT: the thread kept the process alive
  expect(run.status).toBe(0);
  expect(run.stdout).toBe('const a = { b: 1 };\n'); // empty: the process ended before the answer
});
