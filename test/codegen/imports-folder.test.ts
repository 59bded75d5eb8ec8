import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { staleImports, writeImports } from '../../lib';

describe('imports folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imports-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('fresh after writing, stale after the source changes or a file goes missing', () => {
    const files = [
      { path: 'a.example.com.ts', content: 'export interface A {}\n' },
      { path: 'b.example.com.ts', content: 'x' },
    ];
    writeImports(dir, files);
    expect(staleImports(dir, files)).toEqual([]);
    expect(staleImports(dir, [{ path: 'a.example.com.ts', content: 'export interface A { x: string }\n' }])).toEqual([
      'a.example.com.ts',
    ]);
    fs.rmSync(path.join(dir, 'b.example.com.ts'));
    expect(staleImports(dir, files)).toEqual(['b.example.com.ts']);
  });
});
