/**
 * The tests' temporary files go to a folder of the run's own (global-setup.ts), which global-teardown.ts removes: what
 * a test leaves in `os.tmpdir()` (cdk8s's `Testing.app()` output folders) does not pile up on the machine.
 */
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { Testing } from 'cdk8s';
import globalTeardown from './global-teardown';

test("os.tmpdir() in a test is the run's own folder, open to the tests' other users as /tmp is", () => {
  const runTmp = process.env.JEST_RUN_TMPDIR;
  expect(runTmp).toBeDefined();
  expect(tmpdir()).toBe(runTmp);
  expect(basename(runTmp!)).toMatch(/^jest-run-/);
  expect(statSync(runTmp!).mode & 0o7777).toBe(0o1777);
  expect(Testing.app().outdir.startsWith(`${runTmp}/cdk8s.outdir.`)).toBe(true);
});

test('the teardown removes the folder it is given, with what is in it', () => {
  const saved = { ...process.env };
  const dir = mkdtempSync(`${tmpdir()}/teardown-`);
  writeFileSync(`${dir}/left-behind`, 'x');
  try {
    process.env = { JEST_RUN_TMPDIR: dir };
    globalTeardown();
  } finally {
    process.env = saved;
  }
  expect(existsSync(dir)).toBe(false);
});
