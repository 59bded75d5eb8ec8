/**
 * The cache key of test/support/npm-pack.ts: a tarball is shared only between callers whose inputs are the same, so
 * every input of the package changes the key, and what is not packed does not.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { packInputsKey } from './npm-pack';

describe('the npm pack cache key', () => {
  let root: string;
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pack-key-'));
    for (const rel of [
      'lib/index.ts',
      'lib/apiserver/admission-policy/builtin-openapi.json',
      'runtime/index.ts',
      'runtime/envtest/README.md',
      'cli/main.ts',
      'docs/tutorial.md',
      'package.json',
      'tsconfig.json',
      '.projen/tasks.json',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
      'test/a.test.ts',
      'apps/main.ts',
    ]) {
      write(rel, `${rel}\n`);
    }
    write('node_modules/typescript/package.json', '{"version":"5.0.0"}');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test.each([
    ['a source changes', 'lib/index.ts', 'changed\n'],
    ['a nested source changes', 'runtime/envtest/README.md', 'changed\n'],
    ['a data file of lib/ changes', 'lib/apiserver/admission-policy/builtin-openapi.json', '{}'],
    ['a source is added', 'cli/new-command.ts', 'export {};\n'],
    ['a shipped doc changes', 'docs/tutorial.md', 'changed\n'],
    ['package.json changes', 'package.json', '{"files":[]}'],
    ['the prepack task changes', '.projen/tasks.json', '{}'],
    ['the compiler options change', 'tsconfig.json', '{}'],
    ['an .npmignore appears', '.npmignore', 'build/\n'],
    ['the README changes', 'README.md', 'changed\n'],
    ['the TypeScript version changes', 'node_modules/typescript/package.json', '{"version":"5.0.1"}'],
  ])('changes when %s', (_what, rel, text) => {
    const before = packInputsKey(root);
    expect(packInputsKey(root)).toBe(before);
    write(rel, text);
    expect(packInputsKey(root)).not.toBe(before);
  });

  test('a source deleted changes it; a test or an app (not packed) does not', () => {
    const before = packInputsKey(root);
    write('test/a.test.ts', 'changed\n');
    write('apps/main.ts', 'changed\n');
    expect(packInputsKey(root)).toBe(before);
    fs.rmSync(path.join(root, 'cli/main.ts'));
    expect(packInputsKey(root)).not.toBe(before);
  });
});
